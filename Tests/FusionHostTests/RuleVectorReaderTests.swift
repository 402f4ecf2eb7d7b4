import Foundation
import RuleVectors
import Testing

/// The vector reader the Swift rule tests share: a file that is not a vector file fails
/// the tests reading its folder instead of being skipped, which would let every
/// implementation pass without that file's cases.
@Suite struct RuleVectorReaderTests {
    func folder(with files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rule-vectors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test func readsTheCasesOfItsKindOnly() throws {
        let folder = try folder(with: [
            "a.json": #"{"kind":"read","cases":[{"name":"one"},{"name":"two"}]}"#,
            "b.json": #"{"kind":"write","cases":[{"name":"three"}]}"#,
            "notes.txt": "not a vector file, not read"
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try RuleVector.cases(in: folder, "read").map(\.description) == ["a.json: one", "a.json: two"])
    }

    @Test(arguments: [
        #"{"kind":"read","cases":[{"name":"one"}],"#,  // not JSON
        #"{"cases":[{"name":"one"}]}"#,  // no kind
        #"{"kind":"read","cases":{"name":"one"}}"#,  // cases not an array
        #"{"kind":"read","cases":[{"about":"no name"}]}"#
    ])
    func aMalformedFileFailsWhateverKindIsAskedFor(_ text: String) throws {
        let folder = try folder(with: ["good.json": #"{"kind":"read","cases":[{"name":"one"}]}"#, "bad.json": text])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: RuleVector.Malformed.self) { try RuleVector.cases(in: folder, "read") }
        #expect(throws: RuleVector.Malformed.self) { try RuleVector.cases(in: folder, "write") }
    }

    @Test func aMissingFolderFails() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-rule-\(UUID().uuidString)")
        #expect(throws: RuleVector.Malformed.self) { try RuleVector.cases(in: folder, "read") }
    }
}
