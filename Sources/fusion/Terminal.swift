import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal under the REPL: raw mode for the line editor, its width, and writing
/// whole strings to a file descriptor.
enum Terminal {
    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// Columns of the terminal on stdout; nil when it is not a terminal.
    static func columns() -> Int? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Writes all of `text`, retrying short writes and interruptions.
    static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
        var bytes = Array(text.utf8)
        var offset = 0
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while offset < buffer.count {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    // Nothing sensible to do here (the terminal went away, the disk is
                    // full); for stdout, the process's exit says so (`outputFailure`).
                    if descriptor == STDOUT_FILENO { _ = failedOutput.compareExchange(expected: 0, desired: errno, ordering: .relaxed) }
                    return
                }
            }
        }
    }

    /// The errno of the first write to stdout that failed; 0 while none has.
    private static let failedOutput = Atomic<Int32>(0)

    /// Why what the process wrote to stdout did not all get there (a full disk, a closed
    /// descriptor); nil when it all did. The client writes its output only through
    /// `write` (never the C library's buffered stdout), so this is the whole story: a
    /// script that sends the output to a file must not be told it succeeded.
    static func outputFailure() -> String? {
        let failure = failedOutput.load(ordering: .relaxed)
        return failure == 0 ? nil : String(cString: strerror(failure))
    }

    /// One byte from stdin; nil at end of input or on an error.
    static func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// Whether a byte arrives on stdin within `milliseconds` (to tell a lone Escape
    /// key from the start of an escape sequence).
    static func byteReady(within milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }
}

/// Raw mode on stdin for as long as it is entered: keys arrive one at a time, not
/// echoed, with Ctrl-C as a key instead of a signal. Output processing stays on, so
/// "\n" still starts a new line. The previous mode is restored on leave, and also
/// if the process is told to stop (SIGTERM, SIGHUP), so a killed REPL does not leave
/// the terminal unusable.
final class RawMode {
    private var saved = termios()
    private var active = false

    func enter() -> Bool {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return false }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { return false }
        active = true
        RawModeRestore.install(saved)
        return true
    }

    func leave() {
        guard active else { return }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        active = false
    }
}

/// The terminal mode to restore from a signal handler, which can reach only globals.
enum RawModeRestore {
    // Written once, before the handlers that read it are installed.
    nonisolated(unsafe) private static var saved = termios()

    static func install(_ mode: termios) {
        saved = mode
        for signalNumber in [SIGTERM, SIGHUP] {
            signal(signalNumber) { received in
                // tcsetattr and _exit are async-signal-safe.
                tcsetattr(STDIN_FILENO, TCSANOW, &RawModeRestore.saved)
                _exit(128 + received)
            }
        }
    }
}

/// Lines of stdin as bytes, for `fusion run` when no line editor reads them (stdin is a
/// pipe or a file). Unlike `Swift.readLine`, which puts U+FFFD in place of bytes that are
/// not UTF-8, it hands them over as they are, for the session to refuse.
struct StdinLines {
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    /// The next line without its newline; nil at the end of input (or a read error).
    mutating func next() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = newline + 1 }
                return Array(buffer[start..<newline])
            }
            if ended {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return Array(buffer[start...])
            }
            buffer.removeSubrange(0..<start)
            start = 0
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                ended = true
            }
        }
    }
}
