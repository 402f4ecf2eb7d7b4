import ArgumentParser
import FusionHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion replay-check LIB`: what `fusion serve` runs in a child process before it
/// replays a session whose holder may have died of one of its inputs (docs/deploy.md,
/// "Poison inputs"). It reads a journal's header and records as JSON lines on stdin,
/// replays them on a fresh instance, and writes `-1` once the instance is made and each
/// record's index before applying it: if a record kills it, the last line names it.
struct ReplayCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay-check",
        abstract: "Replay a journal read on stdin (for fusion serve's poison check).",
        shouldDisplay: false)

    @Argument(help: ArgumentHelp("The library that wrote the journal.", valueName: "lib"))
    var library: String

    func run() throws {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        var lines: [JSONValue] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            do { lines.append(try JSONParser.parse(String(decoding: line, as: UTF8.self))) } catch {
                throw CLIError(.journal, "replay-check: a line is not JSON: \(error)")
            }
        }
        guard let header = lines.first else { throw CLIError(.journal, "replay-check: no header on stdin") }
        let hosted: HostedLibrary
        do { hosted = try HostedLibrary(path: library) } catch { throw CLIError(.library, "\(error)") }
        let contents = JournalFile.Contents(header: header, records: Array(lines.dropFirst()), droppedTail: nil)
        do throws(JournalError) {
            let journal = try JournaledInstance(
                location: MemoryJournal(contents: contents), library: hosted, feature: nil, options: .object([]),
                startedBy: "fusion replay-check", drivesClock: false, checkpointEvery: 0,
                replaying: { index in Terminal.write("\(index)\n", to: STDOUT_FILENO) })
            journal.close()
            try? journal.instance.destroy()
        } catch {
            throw CLIError(.journal, "\(error)")
        }
    }
}
