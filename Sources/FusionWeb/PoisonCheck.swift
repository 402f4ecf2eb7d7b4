import FusionHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replays a session's journal in a child process before the bridge replays it itself
/// (docs/deploy.md, "Poison inputs"): a feature is someone else's code, and an input that
/// makes it trap kills the process applying it. The bridge that held the session died of
/// it; so would every bridge that took the session over and replayed it, in turn. The
/// child dies instead, and says how far it got: the record it was applying is the poison.
public struct PoisonCheck: Sendable {
    /// The program that replays: `fusion`, run as `EXECUTABLE ARGUMENTS… LIBRARY`, reading
    /// the header and records as JSON lines on stdin, and writing `-1` once the instance is
    /// made, then each record's index before it applies it (`fusion replay-check`).
    public let executable: String
    public let arguments: [String]
    /// A replay that takes longer is stopped, and taken as clean.
    public var timeout: Duration = .seconds(20)

    public init(executable: String, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    public enum Outcome: Sendable, Equatable {
        /// Replayed to the end (or stopped for taking too long).
        case clean
        /// Killed (by `signal`) while applying the record at `index`.
        case trapped(index: Int, signal: Int32)
        /// Killed before any record: the header (the instance's creation) is the poison.
        case trappedCreating(signal: Int32)
        /// The check itself could not run; the words say why.
        case failed(String)
    }

    /// Replays `contents` on the library at `library` in a child process.
    public func check(_ contents: JournalFile.Contents, library: String) -> Outcome {
        var text = contents.header.jsonText + "\n"
        for record in contents.records { text += record.jsonText + "\n" }
        // Socket pairs, close-on-exec from the start: a check spawned meanwhile on another
        // thread must not inherit this one's ends (each would hold the other's stdin open,
        // and wait for it forever). A write to a child that died early fails with EPIPE
        // (MSG_NOSIGNAL) in any process, rather than raising SIGPIPE where nothing ignores
        // it (a test process: it killed the run). (Glibc's pipe2 is out of Swift's reach.)
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &input) == 0 else {
            return .failed("socketpair: \(String(cString: strerror(errno)))")
        }
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &output) == 0 else {
            close(input[0]); close(input[1])
            return .failed("socketpair: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        // The child keeps stdin, stdout and stderr only. Sockets are not all opened
        // close-on-exec (the listening one was not): a child that outlived a bridge
        // killed with -9 kept its port, its queued connections and its database
        // connections, so that the bridge could not be started again.
        _ = Self.closeFrom?(&actions, 3)
        let words = [executable] + arguments + [library]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for word in argv { free(word) } }
        var child: pid_t = 0
        let spawned = Self.quietEnvironment.withCStrings { environment in
            posix_spawn(&child, executable, &actions, nil, &argv, environment)
        }
        close(input[0])
        close(output[1])
        guard spawned == 0 else {
            close(input[1]); close(output[0])
            return .failed("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        // The child reads all of stdin before it replays, so writing it all first cannot
        // block on a full stdout pipe. A child that died early makes the write fail (EPIPE),
        // which is its own answer.
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let wrote = send(input[1], buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if wrote < 0 && errno == EINTR { continue }
                if wrote <= 0 { break }
                offset += wrote
            }
        }
        close(input[1])
        let (printed, finished) = readAll(output[0])
        close(output[0])
        if !finished { kill(child, SIGKILL) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        guard finished else { return .clean }
        let signal = status & 0x7f
        guard signal != 0 else { return .clean }  // exited: replayed to the end, or refused it without dying
        // The last index it wrote is the record it was applying; -1 (or nothing): making the instance.
        let last = printed.split(separator: "\n").compactMap { Int($0) }.last ?? -1
        return last < 0 ? .trappedCreating(signal: signal) : .trapped(index: last, signal: signal)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 on), which Swift's Glibc
    /// module leaves out (it is a GNU extension): found at run time; nil in an older libc.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// The bridge's environment, with Swift's backtracer off: a child that traps dies at
    /// once, instead of spending seconds printing its threads' stacks (with stdout still
    /// open) while the take-over waits for it.
    private static var quietEnvironment: [String] {
        var words: [String] = []
        var entry = environ
        while let word = entry.pointee {
            let text = String(cString: word)
            if !text.hasPrefix("SWIFT_BACKTRACE=") { words.append(text) }
            entry += 1
        }
        return words + ["SWIFT_BACKTRACE=enable=no"]
    }

    /// Everything the child prints until it closes stdout; false when it took too long.
    private func readAll(_ descriptor: Int32) -> (String, Bool) {
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            if left <= .zero { return (String(decoding: text, as: UTF8.self), false) }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&poller, 1, max(1, milliseconds))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return (String(decoding: text, as: UTF8.self), true) }
            text += chunk[0..<count]
        }
    }
}

extension Array where Element == String {
    /// The strings as a NULL-terminated array of C strings, for `body` only.
    fileprivate func withCStrings<Result>(_ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
        let pointers: [UnsafeMutablePointer<CChar>?] = map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
