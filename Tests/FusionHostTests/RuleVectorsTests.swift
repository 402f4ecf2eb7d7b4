import Foundation
import RuleVectors
import Testing

@testable import FusionHost

@Suite struct JournalFormatVectorTests {
    @Test func everyKindHasVectors() throws {
        #expect(try !RuleVector.cases("journal-format", "read").isEmpty)
        #expect(try !RuleVector.cases("journal-format", "write").isEmpty)
        #expect(try !RuleVector.cases("replayable-options", "make").isEmpty)
    }

    /// Read through the real entry point, `JournalFile.open(existing:)`, which also cuts a
    /// torn tail off: the file's length afterwards is the vector's good length.
    @Test(arguments: try RuleVector.cases("journal-format", "read"))
    func reads(_ vector: RuleVector) throws {
        let case_ = vector.value
        let path = try Support.temporaryDirectory().appendingPathComponent("vector.journal").path
        let bytes = Array((case_["text"]?.stringValue ?? "").utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        if let error = case_["error"]?.stringValue {
            let refusal = #expect(throws: JournalError.self) { _ = try JournalFile.open(existing: path) }
            #expect(refusal?.description.contains(error) == true, "\(refusal?.description ?? "no error")")
            return
        }
        let opened = try JournalFile.open(existing: path)
        if case_["none"]?.boolValue == true {
            #expect(opened == nil)
            return
        }
        let contents = try #require(opened).contents
        #expect(contents.header.isEquivalent(to: try #require(case_["header"])))
        #expect(JSONValue.array(contents.records).isEquivalent(to: try #require(case_["records"])))
        #expect((contents.droppedTail != nil) == case_["dropped"]?.boolValue)
        let length = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(length == case_["goodLength"]?.integerValue)
    }

    @Test(arguments: try RuleVector.cases("journal-format", "write"))
    func writes(_ vector: RuleVector) throws {
        let record = try #require(vector.value["record"])
        let path = try Support.temporaryDirectory().appendingPathComponent("vector.journal").path
        // A case with a header is format 2: the record's checksum goes on from the header's.
        let header: JSONValue = vector.value["header"] ?? ["fusionJournal": 1]
        let headerLine = Array(header.jsonText.utf8)
        let file = try JournalFile(creating: path, header: header)
        try file.append(record)
        let written = try FileBytes.read(path)
        let expected = Array((vector.value["line"]?.stringValue ?? "").utf8)
        // The header's own line, then the record's.
        #expect(Array(written.dropFirst(headerLine.count + 10)) == expected)
    }

    @Test(arguments: try RuleVector.cases("replayable-options", "make"))
    func makesReplayableOptions(_ vector: RuleVector) throws {
        let made = ReplayableOptions.make(try #require(vector.value["given"]))
        #expect(made.realTime == vector.value["realTime"]?.boolValue)
        var members = made.options.members ?? []
        if vector.value["seedDrawn"]?.boolValue == true {
            let seed = try #require(members.first { $0.key == "seed" }?.value.integerValue)
            #expect(seed >= 0 && seed < 1 << 53)
            members.removeAll { $0.key == "seed" }
        }
        #expect(JSONValue.object(members).isEquivalent(to: try #require(vector.value["options"])))
    }
}
