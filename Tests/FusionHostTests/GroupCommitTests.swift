import Foundation
import FusionHost
import Testing

/// Group commit (docs/reliability.md, "Group commit"): journals of many sessions share
/// syncs, and a journaled change is still applied only once its record is on the disk,
/// in the journal's order.
@Suite struct GroupCommitTests {
    let library: HostedLibrary

    init() throws {
        library = try HostedLibrary(path: Support.examplesLibrary())
    }

    /// Many sessions' journals at once: every input is applied, fewer syncs than records
    /// ran, and each journal replays to the state its instance reached.
    @Test func concurrentSessionsShareSyncsAndEveryJournalReplays() async throws {
        let folder = try Support.temporaryDirectory()
        let sessions = 40
        let inputs = 25
        let (finalStates, counts) = try await drive(sessions: sessions, inputs: inputs, in: folder)
        #expect(counts.records == sessions * inputs)
        #expect(counts.syncs < counts.records, "records written during one sync share the next: \(counts)")
        #expect(finalStates.allSatisfy { $0.json.contains("\"value\":\(inputs)") })
        // Every journal resumes to the very state and version its instance had.
        for (number, expected) in finalStates.enumerated() {
            let resumed = try JournaledInstance(
                path: folder.appendingPathComponent("\(number).journal").path, library: library, feature: nil,
                options: [:], startedBy: "GroupCommitTests")
            #expect(resumed.resumed?.records == inputs)
            #expect(try resumed.instance.state() == expected)
            try resumed.instance.destroy()
        }
    }

    /// Sessions' counters driven at once through one committer; their final states and
    /// the committer's counts. The journals are closed when this returns.
    private func drive(sessions: Int, inputs: Int, in folder: URL) async throws -> ([InstanceState], JournalCommitter.Counts) {
        let committer = JournalCommitter()
        let journals = try (0..<sessions).map { number in
            try JournaledInstance(
                path: folder.appendingPathComponent("\(number).journal").path, library: library, feature: "counter",
                options: ["clock": "manual"], startedBy: "GroupCommitTests", committer: committer)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for journal in journals {
                group.addTask {
                    for _ in 0..<inputs { try await journal.send("\"increase\"") }
                }
            }
            try await group.waitForAll()
        }
        let states = try journals.map { try $0.instance.state() }
        for journal in journals {
            journal.close()
            try journal.instance.destroy()
        }
        committer.stop()
        return (states, committer.counts)
    }

    /// Several callers of one instance at once: whichever caller's sync returns first,
    /// records are applied in the order the journal holds them, so a replay matches.
    @Test func oneInstanceDrivenFromManyTasksAppliesInTheJournalsOrder() async throws {
        let path = try Support.temporaryDirectory().appendingPathComponent("counter.journal").path
        let live = try await driveOneInstance(from: 16, steps: 20, path: path)
        // The alert names the value at the moment of each show: only the same order makes it.
        let resumed = try JournaledInstance(path: path, library: library, feature: nil, options: [:], startedBy: "GroupCommitTests")
        #expect(resumed.resumed?.records == 16 * 24)
        #expect(try resumed.instance.state() == live)
        try resumed.instance.destroy()
    }

    /// Increases, decreases and shows from many tasks into one counter at once; its
    /// final state. The journal is closed when this returns.
    private func driveOneInstance(from tasks: Int, steps: Int, path: String) async throws -> InstanceState {
        let committer = JournalCommitter()
        // No checkpoint: the journal keeps every record, to be replayed in its order.
        let journal = try JournaledInstance(
            path: path, library: library, feature: "counter", options: ["clock": "manual"], startedBy: "GroupCommitTests",
            committer: committer, checkpointEvery: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for step in 0..<steps {
                        try await journal.send((task + step) % 3 == 0 ? "\"decrease\"" : "\"increase\"")
                        if step % 5 == 0 { try await journal.send("{\"show\":{}}") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let live = try journal.instance.state()
        journal.close()
        try journal.instance.destroy()
        committer.stop()
        return live
    }

    /// A refused input is journaled and refused again, and its caller hears the refusal
    /// from whichever thread applied it.
    @Test func aRefusalReachesItsOwnCaller() async throws {
        let folder = try Support.temporaryDirectory()
        let committer = JournalCommitter()
        let journal = try JournaledInstance(
            path: folder.appendingPathComponent("c.journal").path, library: library, feature: "counter", options: [:],
            startedBy: "GroupCommitTests", committer: committer)
        try await journal.send("\"increase\"")
        let refused = await #expect(throws: JournaledCallError.self) { try await journal.send("\"jump\"") }
        guard case .refused(let failure)? = refused else {
            Issue.record("expected a refusal, got \(String(describing: refused))")
            return
        }
        #expect(failure.status == .unknownInput)
        // The blocking form, as the real-time clock and `fusion run` call it, shares too.
        try sendBlocking(journal, "\"increase\"")
        #expect(try journal.instance.state().json.contains("\"value\":2"))
        journal.close()
        try journal.instance.destroy()
    }

    /// After `stop` the committer's thread is gone; a record handed over then is synced
    /// by its caller, and nothing waits forever.
    @Test func aStoppedCommitterStillPutsRecordsOnTheDisk() async throws {
        let folder = try Support.temporaryDirectory()
        let committer = JournalCommitter()
        let path = folder.appendingPathComponent("c.journal").path
        let journal = try JournaledInstance(
            path: path, library: library, feature: "counter", options: [:], startedBy: "GroupCommitTests", committer: committer)
        committer.stop()
        try await journal.send("\"increase\"")
        #expect(try journal.instance.state().version == 1)
        journal.close()
        try journal.instance.destroy()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 && lines[1].hasPrefix(#"{"send":"increase"}"#))
    }
}

/// The blocking `send`: from a synchronous function, where the `async` one is not chosen.
private func sendBlocking(_ journal: JournaledInstance, _ input: String) throws {
    try journal.send(input)
}
