import Foundation
import Testing

@testable import FusionHost

/// A journaled session on the system clock runs on a manual clock moved in real time;
/// the journal writes a move only when it can change what a replay does (an effect's
/// sleep is due, fk_next_wake) or before another record: not every 10 ms.
@Suite struct JournalClockTests {
    let library: HostedLibrary

    init() throws {
        library = try HostedLibrary(path: Support.examplesLibrary())
    }

    @Test(arguments: [false, true])
    func theLiveScanIsJournaledWhenAScanIsDueNotEveryTick(groupCommit: Bool) async throws {
        let path = try Support.temporaryDirectory().appendingPathComponent("wifi.journal").path
        let final = try await scanForAWhile(path: path, groupCommit: groupCommit)
        let records = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map { line in
            try JSONParser.parse(String(line[..<line.lastIndex(of: " ")!]))
        }
        // A move per scan that fell due (one, or more when a loaded machine lets the scan
        // run late), then the time held back: never one per 10 ms tick.
        let kinds = records.map { $0.members?.first?.key ?? "" }
        #expect(kinds.first == "send" && kinds.last == "send" && kinds.dropFirst().dropLast().allSatisfy { $0 == "advance" }, "\(records)")
        let moves = records.compactMap { $0["advance"]?.integerValue }
        #expect((2...4).contains(moves.count), "\(records)")
        #expect(moves.dropLast().allSatisfy { $0 >= 2_000_000_000 }, "each move but the last made a scan due")
        #expect(moves.last.map { $0 > 0 && $0 < 2_000_000_000 } == true, "then the time held back, before the input")
        let resumed = try JournaledInstance(path: path, library: library, feature: nil, options: [:], startedBy: "JournalClockTests")
        #expect(try resumed.instance.state() == final)
        resumed.stop()
        try resumed.instance.destroy()
    }

    /// The Wi-Fi page's live scan on the real-time clock until its first scan and until
    /// the journal holds time back (ticks after it, no scan due), then an input; the final
    /// state. The journal is closed on return.
    private func scanForAWhile(path: String, groupCommit: Bool) async throws -> InstanceState {
        let committer = groupCommit ? JournalCommitter() : nil
        let journal = try JournaledInstance(
            path: path, library: library, feature: "wifi", options: [:], startedBy: "JournalClockTests", committer: committer)
        #expect(journal.realTime)
        try await journal.send("\"screenAppeared\"")
        #expect(await Support.eventually { ((try? journal.instance.version()) ?? 0) >= 2 }, "the first scan, two seconds in")
        #expect(
            await Support.eventually { journal.applying.withLock { $0.heldTime } > 0 },
            "real time passes that the journal holds back: no scan is due")
        try await journal.send("\"screenDisappeared\"")
        let final = try journal.instance.state()
        journal.close()
        try journal.instance.destroy()
        committer?.stop()
        return final
    }
}
