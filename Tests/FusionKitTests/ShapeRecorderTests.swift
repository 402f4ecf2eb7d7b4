import Testing

@testable import FusionKit

private enum Connectivity: String, Codable, CaseIterable { case strong, weak = "weak-signal" }

private struct Item: Codable {
    var id: String
    var score: Double
    var tags: [String]
    var parent: String?
    var connectivity: Connectivity
}

private enum Input: Decodable {
    case tapped(id: String)
    case moved(x: Int, y: Int, label: String?)
    case cleared
}

private struct Tree: Codable {
    var name: String
    var children: [Tree]
}

private indirect enum Expression: Codable {
    case number(value: Int)
    case sum(left: Expression, right: Expression)
}

@Suite struct ShapeRecorderTests {
    @Test func describesStructFieldsInOrder() {
        guard case .object(let name, let fields) = ShapeRecorder.shape(of: Item.self) else {
            Issue.record("not an object")
            return
        }
        #expect(name == "Item")
        #expect(fields.map(\.name) == ["id", "score", "tags", "parent", "connectivity"])
        #expect(fields.map(\.required) == [true, true, true, false, true])
        #expect(fields[1].shape == .number)
        #expect(fields[2].shape == .array(.string))
        #expect(fields[3].shape == .optional(.string))
        #expect(fields[4].shape == .stringEnum(name: "Connectivity", values: ["strong", "weak-signal"]))
    }

    @Test func describesEveryEnumCaseWithItsFields() {
        guard case .taggedUnion(_, let cases) = ShapeRecorder.shape(of: Input.self) else {
            Issue.record("not a tagged union")
            return
        }
        #expect(Set(cases.map(\.name)) == ["tapped", "moved", "cleared"])
        let moved = cases.first { $0.name == "moved" }
        #expect(moved?.fields.map(\.name) == ["x", "y", "label"])
        #expect(moved?.fields.map(\.required) == [true, true, false])
        #expect(cases.first { $0.name == "cleared" }?.fields.isEmpty == true)
    }

    @Test func stopsAtRecursion() {
        guard case .object(_, let fields) = ShapeRecorder.shape(of: Tree.self) else {
            Issue.record("not an object")
            return
        }
        #expect(fields[1].shape == .array(.reference(name: "Tree")))
        guard case .taggedUnion(_, let cases) = ShapeRecorder.shape(of: Expression.self) else {
            Issue.record("not a tagged union")
            return
        }
        #expect(
            cases.contains {
                $0.name == "sum" && $0.fields.map(\.shape) == [.reference(name: "Expression"), .reference(name: "Expression")]
            })
    }

    @Test func writesJSONSchema() throws {
        let schema = ShapeRecorder.shape(of: Item.self).jsonSchema
        #expect(schema["type"] == "object")
        #expect(schema["required"] == ["id", "score", "tags", "connectivity"])
        #expect(schema["properties"]?["tags"] == ["type": "array", "items": ["type": "string"]])
        #expect(schema["properties"]?["parent"] == ["anyOf": [["type": "string"], ["type": "null"]]])
    }
}
