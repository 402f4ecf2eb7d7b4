import Foundation
import FusionHost
import Testing

@testable import FusionWeb

/// The child a poison check runs keeps stdin, stdout and stderr, and nothing else of the
/// bridge's (outside probe: checks that outlived a bridge killed with -9 held its
/// listening socket, its database connections and each other's pipes, so the bridge
/// could not be started again and the checks never ended).
@Suite struct PoisonCheckTests {
    @Test func theChildKeepsOnlyItsStandardDescriptors() throws {
        let listing = FileManager.default.temporaryDirectory.appendingPathComponent("descriptors-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: listing) }
        // A descriptor open without close-on-exec, as the bridge's sockets are.
        let held = open("/dev/null", O_RDONLY)
        #expect(held > 2)
        defer { close(held) }
        // The child (the shell, then ls in its place) lists its descriptors: 0, 1 (the file),
        // 2 and 3, the folder ls reads. The library's path comes last, as $1.
        let check = PoisonCheck(executable: "/bin/sh", arguments: ["-c", "exec ls /proc/self/fd > \(listing)", "sh"])
        let contents = JournalFile.Contents(header: ["fusionJournal": 2], records: [["send": "increase"]], droppedTail: nil)
        #expect(check.check(contents, library: "/nowhere/libFusionExamples.so") == .clean)
        let names = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").sorted()
        #expect(names == ["0", "1", "2", "3"])
    }

    /// A child that dies before reading its journal: writing the rest fails (EPIPE), and the
    /// check says so without raising SIGPIPE in the process that runs it (a journal larger
    /// than the socket's buffer; before, where SIGPIPE was not ignored, as in a test process
    /// before any NIO socket, it killed that process: a CI run ended so).
    @Test func aChildThatDiesWithoutReadingItsJournalIsNoSignal() {
        let check = PoisonCheck(executable: "/bin/sh", arguments: ["-c", "exit 0", "sh"])
        let record: JSONValue = ["send": ["answerChanged": ["text": .string(String(repeating: "x", count: 1 << 16))]]]
        let contents = JournalFile.Contents(
            header: ["fusionJournal": 2], records: Array(repeating: record, count: 64), droppedTail: nil)
        #expect(check.check(contents, library: "/nowhere/libFusionExamples.so") == .clean)
    }
}
