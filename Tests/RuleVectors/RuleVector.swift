import Foundation
import FusionJSON

/// One case of a shared vector file (Tests/vectors, docs/rules), named for the test list.
/// The Swift test targets that hold an implementation to the vectors share this reader.
public struct RuleVector: Sendable, CustomStringConvertible {
    public let file: String
    public let value: JSONValue
    public var description: String { "\(file): \(value["name"]?.stringValue ?? "?")" }

    /// Every case of `kind` in every file of the rule's folder (Tests/vectors/`rule`): a
    /// case added there is checked with no change to the tests.
    public static func cases(_ rule: String, _ kind: String) -> [RuleVector] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("vectors/\(rule)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.filter { $0.hasSuffix(".json") }.sorted() ?? []
        return files.flatMap { file -> [RuleVector] in
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(file).path),
                let document = try? JSONParser.parse([UInt8](data)), document["kind"]?.stringValue == kind
            else { return [] }
            return (document["cases"]?.elements ?? []).map { RuleVector(file: file, value: $0) }
        }
    }
}
