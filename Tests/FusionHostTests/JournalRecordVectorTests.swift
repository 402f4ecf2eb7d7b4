import Foundation
import RuleVectors
import Testing

@testable import FusionHost

/// What a journaled session writes (docs/rules/journal-format.md): a record per change,
/// a checkpoint every 100 records carrying the `applied` message ids and the `poisoned`
/// inputs, and the real-time clock journaled only when an effect's sleep is due or before
/// another record. The shared vectors in Tests/vectors/journal-records, which the Python
/// tests read too (Tests/python/test_rule_vectors.py).
@Suite struct JournalRecordVectorTests {
    @Test(arguments: try RuleVector.cases("journal-records", "session"))
    func session(_ vector: RuleVector) throws {
        let library = try HostedLibrary(path: Support.examplesLibrary())
        let feature = try #require(vector.value["feature"]?.stringValue)
        let path = try Support.temporaryDirectory().appendingPathComponent("vector.journal").path
        if let journal = vector.value["journal"]?.elements {
            // A journal of this library holding the vector's records, which the session resumes.
            let made = try JournaledInstance(
                path: path, library: library, feature: feature, options: ["clock": "manual"], startedBy: "vectors")
            made.close()
            try made.instance.destroy()
            let file = try #require(try JournalFile.open(existing: path)).file
            for record in journal { try file.append(record) }
            file.close()
        }
        let session = try JournaledInstance(
            path: path, library: library, feature: feature, options: ["clock": "manual"], startedBy: "vectors")
        for event in try #require(vector.value["events"]?.elements) {
            let (kind, value) = try #require(event.members?.first.map { ($0.key, $0.value) })
            for _ in 0..<(event["times"]?.integerValue ?? 1) {
                switch kind {
                case "send": try session.send(value.jsonText)
                case "advance": try session.advanceClock(byNanoseconds: UInt64(try #require(value.integerValue)))
                case "tick": session.tick(UInt64(try #require(value.integerValue)))  // what the real-time ticker calls
                default: Issue.record("an event of no kind this test knows: \(event.jsonText)")
                }
            }
        }
        session.close()
        try session.instance.destroy()
        let records = try #require(try JournalFile.open(existing: path)).contents.records
        let expected = try #require(vector.value["records"]?.elements)
        #expect(records.count == expected.count, "\(JSONValue.array(records).jsonText)")
        for (number, (want, record)) in zip(expected, records).enumerated() {
            // {"checkpoint": null} stands for a checkpoint, whatever the library put in it.
            let matches = want == ["checkpoint": .null] ? record.members?.map(\.key) == ["checkpoint"] : record.isEquivalent(to: want)
            #expect(matches, "record \(number + 1): expected \(want.jsonText), got \(record.jsonText)")
        }
    }
}
