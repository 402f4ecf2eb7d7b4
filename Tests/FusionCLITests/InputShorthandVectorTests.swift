import Foundation
import RuleVectors
import Testing

@testable import FusionHost
@testable import fusion

/// The shell client's input syntax (docs/rules/input-shorthand.md) against the shared
/// vectors in Tests/vectors/input-shorthand, which the Python and web tests read too:
/// "structured" (a case name and field values, as the other front ends take them),
/// "text" (a line typed in `fusion run`) and "value" (one field value as written).
@Suite struct InputShorthandVectorTests {
    typealias Vector = RuleVector

    @Test func everyKindHasVectors() throws {
        #expect(try !Vector.cases("input-shorthand", "structured").isEmpty)
        #expect(try !Vector.cases("input-shorthand", "text").isEmpty)
        #expect(try !Vector.cases("input-shorthand", "value").isEmpty)
    }

    /// One value as written, no manifest: what `field=value` stands for once its quotes
    /// are read (the web page reads its query values by the same vectors).
    @Test(arguments: try Vector.cases("input-shorthand", "value"))
    func value(_ vector: Vector) throws {
        let text = try #require(vector.value["text"]?.stringValue)
        let value = InputSyntax.value(of: .init(name: "field", value: text, literal: false), schema: nil)
        #expect(value.isEquivalent(to: try #require(vector.value["json"])), "\(value.jsonText)")
    }

    /// A case name and its fields, each field value given as its JSON text (what the
    /// shell makes of `field=value` once typed).
    @Test(arguments: try Vector.cases("input-shorthand", "structured"))
    func structured(_ vector: Vector) throws {
        let input = try #require(vector.value["input"])
        let written: InputSyntax.Written
        switch input {
        case .string(let name):
            guard let fields = vector.value["fields"] else {
                written = .structured(name: name, fields: [])
                break
            }
            guard let members = fields.members else {
                #expect(vector.value["error"]?.boolValue == true)
                return
            }
            written = .structured(name: name, fields: members.map { .init(name: $0.key, value: $0.value.jsonText, literal: false) })
        case .object where vector.value["fields"] == nil:
            written = .json(input.jsonText)
        default:
            // A number, an array, or an input object with fields besides: the shell has no
            // way to write it; the other front ends refuse it.
            #expect(vector.value["error"]?.boolValue == true)
            return
        }
        let json = try JSONParser.parse(try InputSyntax.json(for: written, in: nil))
        #expect(json.isEquivalent(to: try #require(vector.value["json"])))
    }

    @Test(arguments: try Vector.cases("input-shorthand", "text"))
    func text(_ vector: Vector) throws {
        let line = try #require(vector.value["line"]?.stringValue)
        let feature = vector.value["fields"].map(Self.feature(fields:))
        let result = Result { () throws(InputSyntax.SyntaxError) -> String in
            try InputSyntax.json(for: try InputSyntax.parse(line: line), in: feature)
        }
        switch result {
        case .success(let json):
            #expect(vector.value["error"] == nil, "accepted: \(json)")
            let expected = try #require(vector.value["json"])
            #expect(try JSONParser.parse(json).isEquivalent(to: expected))
        case .failure(let error):
            let wanted = try #require(vector.value["error"]?.stringValue, "refused: \(error.message)")
            #expect(error.message.contains(wanted), "\(error.message)")
        }
    }

    /// A feature whose manifest gives these inputs these field schemas.
    static func feature(fields: JSONValue) -> Manifest.Feature {
        let inputs = (fields.members ?? []).map { input in
            Manifest.InputCase(
                name: input.key,
                fields: (input.value.members ?? []).map { field in
                    Manifest.Field(name: field.key, type: field.value["type"]?.stringValue ?? "?", required: true, schema: field.value)
                })
        }
        return Manifest.Feature(name: "vector", summary: "", inputs: inputs, stateSchema: [:], inputSchema: nil, stateVersion: 1)
    }
}
