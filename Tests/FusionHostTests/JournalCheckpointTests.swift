import Foundation
import FusionHost
import Testing

/// Checkpoints (docs/reliability.md, "Checkpoints"): a journal replaces what it holds by
/// a checkpoint every so many records, so that it stays as large as the state and a
/// bounded tail; resuming it gives the same state and version, and the session goes on
/// the same way as the live one did.
@Suite struct JournalCheckpointTests {
    let library: HostedLibrary

    init() throws {
        library = try HostedLibrary(path: Support.examplesLibrary())
    }

    /// The lines of a journal after its header, each record's one key.
    private func kinds(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map { line in
            try JSONParser.parse(String(line[..<line.lastIndex(of: " ")!])).members?.first?.key ?? ""
        }
    }

    @Test func aJournalKeepsACheckpointAndTheRecordsSinceIt() throws {
        let path = try Support.temporaryDirectory().appendingPathComponent("counter.journal").path
        let live: InstanceState
        do {
            let journal = try JournaledInstance(
                path: path, library: library, feature: "counter", options: [:], startedBy: "JournalCheckpointTests", checkpointEvery: 10)
            for step in 0..<25 { try journal.send(step % 7 == 0 ? #"{"show":{}}"# : #""increase""#) }
            live = try journal.instance.state()
            try journal.instance.destroy()
            journal.close()
        }
        // Checkpoints at 10 and 19 records (the checkpoint counts as one): it and six since.
        let journaled = try kinds(path)
        #expect(journaled == ["checkpoint"] + Array(repeating: "send", count: 6), "\(journaled)")
        let resumed = try JournaledInstance(path: path, library: library, feature: nil, options: [:], startedBy: "JournalCheckpointTests")
        #expect(resumed.resumed?.records == 7)
        #expect(try resumed.instance.state() == live)
        try resumed.send(#""increase""#)
        #expect(try resumed.instance.state().version == live.version + 1)
        try resumed.instance.destroy()
    }

    /// The client message ids journaled with inputs (`sendBy`) answer `outcome(ofMessage:)`
    /// after a resume, across a checkpoint too (the `applied` record after it carries them).
    @Test func messageIDsSurviveAResumeAndACheckpoint() async throws {
        let path = try Support.temporaryDirectory().appendingPathComponent("counter.journal").path
        do {
            let journal = try JournaledInstance(
                path: path, library: library, feature: "counter", options: ["clock": "manual"], startedBy: "JournalCheckpointTests",
                checkpointEvery: 10)
            for step in 0..<15 {
                if step == 4 { await refuse(journal, "page.refusedEarly") }  // before the checkpoint: carried in `refused`
                try await journal.send(#""increase""#, by: .string("page.\(step)"))
            }
            await refuse(journal, "page.refused")  // after it: its record is replayed, and refused again
            #expect(journal.outcome(ofMessage: .string("page.3")) == .applied)
            #expect(journal.outcome(ofMessage: .string("page.15")) == nil)
            #expect(journal.outcome(ofMessage: .string("page.refused")) == .refused(Self.jump))
            try journal.instance.destroy()
            journal.close()
        }
        #expect(try kinds(path).prefix(3) == ["checkpoint", "applied", "refused"])
        let resumed = try JournaledInstance(path: path, library: library, feature: nil, options: [:], startedBy: "JournalCheckpointTests")
        #expect(try resumed.instance.state().json.contains(#""value":15"#))
        for step in 0..<15 { #expect(resumed.outcome(ofMessage: .string("page.\(step)")) == .applied, "page.\(step)") }
        // Refused by the feature: done all the same, and a client asking after a crash is
        // told the refusal it was told the first time.
        #expect(resumed.outcome(ofMessage: .string("page.refused")) == .refused(Self.jump))
        #expect(resumed.outcome(ofMessage: .string("page.refusedEarly")) == .refused(Self.jump))
        #expect(resumed.outcome(ofMessage: .string("page.14")) == .applied)
        #expect(resumed.outcome(ofMessage: .string("page.15")) == nil && resumed.outcome(ofMessage: .integer(3)) == nil)
        try resumed.instance.destroy()
        resumed.close()
    }

    static let jump = RecentMessageIDs.Refusal(
        status: "FK_ERR_UNKNOWN_INPUT",
        message: #"unknown input "jump" for feature "counter"; valid inputs: increase, decrease, reset, show, alertDismissed"#)

    private func refuse(_ journal: JournaledInstance, _ message: String) async {
        do {
            try await journal.send(#""jump""#, by: .string(message))
            Issue.record("an input the counter lacks was not refused")
        } catch {}
    }

    /// An effect the feature cannot restart (the Wi-Fi join) holds the checkpoint off
    /// until it is over; the live scan, which it restarts, does not.
    @Test func aJoinUnderWayWaitsForItsCheckpoint() throws {
        let path = try Support.temporaryDirectory().appendingPathComponent("wifi.journal").path
        let live: InstanceState
        do {
            let journal = try JournaledInstance(
                path: path, library: library, feature: "wifi", options: ["clock": "manual"], startedBy: "JournalCheckpointTests",
                checkpointEvery: 3)
            try journal.send(#""screenAppeared""#)
            try journal.send(#"{"networkTapped":{"id":"blob"}}"#)
            try journal.send(#"{"passwordChanged":{"password":"blob"}}"#)
            // Three records, the scan alone running: a checkpoint. Then the join starts.
            #expect(try kinds(path) == ["checkpoint"])
            try journal.send(#""joinButtonTapped""#)
            try journal.advanceClock(byNanoseconds: 500_000_000)
            try journal.advanceClock(byNanoseconds: 100_000_000)
            // Due again, but the join (not restartable) is under way: no checkpoint.
            #expect(try kinds(path) == ["checkpoint", "send", "advance", "advance"])
            #expect(try journal.instance.checkpointBlocked?.contains("wifi.connect.join") == true)
            try journal.advanceClock(byNanoseconds: 500_000_000)  // the join's second is up
            #expect(try kinds(path) == ["checkpoint"])
            try journal.advanceClock(byNanoseconds: 2_000_000_000)  // a scan
            live = try journal.instance.state()
            try journal.instance.destroy()
            journal.close()
        }
        let resumed = try JournaledInstance(path: path, library: library, feature: nil, options: [:], startedBy: "JournalCheckpointTests")
        #expect(try resumed.instance.state() == live)
        #expect(live.json.contains(#""selectedNetworkID":"blob""#))
        // The live scan goes on from the checkpoint as it did live: the next scan is due
        // at the same time in both.
        #expect(try resumed.instance.nextWake() != nil)
        try resumed.instance.destroy()
    }
}

extension HostedInstance {
    /// Why fk_checkpoint refuses now (its message), or nil when it does not.
    fileprivate var checkpointBlocked: String? {
        get throws {
            do {
                _ = try checkpoint()
                return nil
            } catch {
                guard let failure = error.failure, failure.status == .busy else { throw error }
                return failure.message
            }
        }
    }
}
