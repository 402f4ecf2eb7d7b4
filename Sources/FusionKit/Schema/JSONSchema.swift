extension Shape {
    /// This shape as a JSON Schema (draft 2020-12) document.
    public var jsonSchema: JSONValue {
        switch self {
        case .boolean: return ["type": "boolean"]
        case .integer: return ["type": "integer"]
        case .number: return ["type": "number"]
        case .string: return ["type": "string"]
        case .stringEnum(let name, let values):
            var members: [JSONMember] = [JSONMember("type", "string"), JSONMember("enum", .array(values.map(JSONValue.string)))]
            if !name.isEmpty { members.insert(JSONMember("title", .string(name)), at: 0) }
            return .object(members)
        case .array(let element): return ["type": "array", "items": element.jsonSchema]
        case .dictionary(let value): return ["type": "object", "additionalProperties": value.jsonSchema]
        case .object(let name, let fields):
            return Self.objectSchema(title: name, fields: fields)
        case .taggedUnion(let name, let cases):
            let variants = cases.map { item -> JSONValue in
                [
                    "type": "object",
                    "properties": .object([
                        JSONMember(item.name, item.value?.jsonSchema ?? Self.objectSchema(title: "", fields: item.fields))
                    ]),
                    "required": [.string(item.name)],
                    "additionalProperties": false
                ]
            }
            var members = [JSONMember("oneOf", .array(variants))]
            if !name.isEmpty { members.insert(JSONMember("title", .string(name)), at: 0) }
            return .object(members)
        case .optional(let wrapped): return ["anyOf": [wrapped.jsonSchema, ["type": "null"]]]
        case .reference(let name):
            return ["title": .string(name), "description": .string("recursive: the same shape as the enclosing \(name)")]
        case .any: return .object([])
        }
    }

    private static func objectSchema(title: String, fields: [Field]) -> JSONValue {
        var members: [JSONMember] = [
            JSONMember("type", "object"),
            JSONMember("properties", .object(fields.map { JSONMember($0.name, $0.shape.jsonSchema) })),
            JSONMember("required", .array(fields.filter(\.required).map { .string($0.name) })),
            JSONMember("additionalProperties", false)
        ]
        if !title.isEmpty { members.insert(JSONMember("title", .string(title)), at: 0) }
        return .object(members)
    }
}
