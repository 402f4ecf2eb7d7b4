import Foundation
import FusionJSON

/// One case of a shared vector file (Tests/vectors, docs/rules), named for the test list.
/// The Swift test targets that hold an implementation to the vectors share this reader.
public struct RuleVector: Sendable, CustomStringConvertible {
    public let file: String
    public let value: JSONValue
    public var description: String { "\(file): \(value["name"]?.stringValue ?? "?")" }

    /// A vector file that cannot be read as one: it fails the tests reading its folder,
    /// where dropping it would let every implementation pass without its cases.
    public struct Malformed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Every case of `kind` in every file of the rule's folder (Tests/vectors/`rule`): a
    /// case added there is checked with no change to the tests.
    public static func cases(_ rule: String, _ kind: String) throws(Malformed) -> [RuleVector] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("vectors/\(rule)")
        return try cases(in: folder, kind)
    }

    /// Every case of `kind` in the vector files (*.json) of `folder`; throws when the
    /// folder cannot be listed or a file is not a vector file (not JSON, no string
    /// `kind`, no array of `cases` each with a `name`).
    public static func cases(in folder: URL, _ kind: String) throws(Malformed) -> [RuleVector] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw Malformed(description: "\(folder.path): \(error)")
        }
        var found: [RuleVector] = []
        for file in names.filter({ $0.hasSuffix(".json") }).sorted() {
            let path = folder.appendingPathComponent(file).path
            guard let data = FileManager.default.contents(atPath: path) else { throw Malformed(description: "\(path): unreadable") }
            let document: JSONValue
            do {
                document = try JSONParser.parse([UInt8](data))
            } catch {
                throw Malformed(description: "\(path): not JSON: \(error)")
            }
            guard let fileKind = document["kind"]?.stringValue else { throw Malformed(description: "\(path): no \"kind\"") }
            guard let cases = document["cases"]?.elements else { throw Malformed(description: "\(path): no \"cases\" array") }
            if let unnamed = cases.firstIndex(where: { $0["name"]?.stringValue == nil }) {
                throw Malformed(description: "\(path): case \(unnamed) has no \"name\"")
            }
            if fileKind == kind { found += cases.map { RuleVector(file: file, value: $0) } }
        }
        return found
    }
}
