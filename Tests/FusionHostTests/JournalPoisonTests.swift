import Foundation
import FusionHost
import Testing

/// Poison inputs (docs/deploy.md, "Poison inputs"): a record put out of the way as one
/// (`{"poisoned": …}`) is refused again by its message id and by its content, the same
/// input on the same state (the instance's version), and carried past a checkpoint with
/// the version it was applied at.
@Suite struct JournalPoisonTests {
    let library: HostedLibrary

    init() throws {
        library = try HostedLibrary(path: Support.examplesLibrary())
    }

    /// A counter's journal: two increases, then the "poison", an increase at version 2
    /// (`c`), put out of the way as the bridge that took the session over does.
    private func poisonedJournal() async throws -> String {
        let path = try Support.temporaryDirectory().appendingPathComponent("counter.journal").path
        let journal = try JournaledInstance(
            path: path, library: library, feature: "counter", options: ["clock": "manual"], startedBy: "JournalPoisonTests")
        for id in ["a", "b", "c"] { try await journal.send(#""increase""#, by: .string(id)) }
        try journal.instance.destroy()
        journal.close()
        try FileJournal(path: path).poison(recordAt: 2)
        return path
    }

    private func resume(_ path: String, checkpointEvery: Int = JournaledInstance.defaultCheckpointEvery) throws -> JournaledInstance {
        try JournaledInstance(
            path: path, library: library, feature: nil, options: [:], startedBy: "JournalPoisonTests", checkpointEvery: checkpointEvery)
    }

    @Test func theSameInputOnTheSameStateIsPoisonWhateverItsID() async throws {
        let resumed = try resume(try await poisonedJournal())
        defer { try? resumed.instance.destroy() }
        #expect(try resumed.instance.version() == 2)
        #expect(resumed.wasPoisoned(.string("c")) && !resumed.wasPoisoned(.string("b")))
        #expect(resumed.poisonCount == 1)
        // However it is written: the shorthand, the long form, members in any order.
        #expect(resumed.isPoison("increase"))
        #expect(resumed.isPoison(["increase": [:]]))
        #expect(!resumed.isPoison("decrease"))
        #expect(!resumed.isPoison(["increase": ["by": 2]]))
        // On another state it is another matter.
        try await resumed.send(#""decrease""#, by: .string("d"))
        #expect(!resumed.isPoison("increase"))
    }

    @Test func aCheckpointCarriesThePoisonInputWithItsVersion() async throws {
        let path = try await poisonedJournal()
        do {
            let resumed = try resume(path, checkpointEvery: 3)
            // Back to version 2's state by other inputs is another version: not poison.
            try await resumed.send(#""increase""#, by: .string("e"))
            try await resumed.send(#""decrease""#, by: .string("f"))
            #expect(!resumed.isPoison("increase"))
            try resumed.instance.destroy()
            resumed.close()
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.dropFirst().first?.hasPrefix(#"{"checkpoint":"#) == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix(#"{"poisoned":{"id":"c","record":{"sendBy":{"id":"c","input":"increase"}},"version":2}}"#) })
        let again = try resume(path)
        defer { try? again.instance.destroy() }
        #expect(again.wasPoisoned(.string("c")) && again.poisonCount == 1)
        #expect(!again.isPoison("increase"))  // at version 4 now
    }

    /// A record that says its version is read as it says, not where it stands.
    @Test func aPoisonedRecordWithAVersionIsReadAtThatVersion() throws {
        let path = try Support.temporaryDirectory().appendingPathComponent("counter.journal").path
        do {
            let journal = try JournaledInstance(
                path: path, library: library, feature: "counter", options: ["clock": "manual"], startedBy: "JournalPoisonTests")
            try journal.send(#""increase""#)
            try journal.instance.destroy()
            journal.close()
        }
        let carried = #"{"poisoned":{"id":null,"record":{"send":{"decrease":{}}},"version":1}}"#
        let file = try #require(try JournalFile.open(existing: path)).file
        try file.append(try JSONParser.parse(carried))
        file.close()
        let resumed = try resume(path)
        defer { try? resumed.instance.destroy() }
        #expect(resumed.isPoison("decrease") && !resumed.isPoison("increase"))
        #expect(resumed.poisonCount == 1)
    }
}
