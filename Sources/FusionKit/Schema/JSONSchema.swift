extension Shape {
    /// This shape as a JSON Schema (draft 2020-12) document, as JSON is *read* into the
    /// type: a field the type may do without (an optional) may be left out.
    public var jsonSchema: JSONValue { jsonSchema(written: false) }

    /// This shape as a JSON Schema document of what FusionKit *writes* for a value of it:
    /// every field is there, an absent optional as `null` (the encoder writes nil as null,
    /// so a patch can replace it). A state's schema is of this kind.
    public var writtenJSONSchema: JSONValue { jsonSchema(written: true) }

    private func jsonSchema(written: Bool) -> JSONValue {
        switch self {
        case .boolean: return ["type": "boolean"]
        case .integer: return ["type": "integer"]
        case .number: return ["type": "number"]
        case .string: return ["type": "string"]
        case .stringEnum(let name, let values):
            var members: [JSONMember] = [JSONMember("type", "string"), JSONMember("enum", .array(values.map(JSONValue.string)))]
            if !name.isEmpty { members.insert(JSONMember("title", .string(name)), at: 0) }
            return .object(members)
        case .array(let element): return ["type": "array", "items": element.jsonSchema(written: written)]
        case .dictionary(let value): return ["type": "object", "additionalProperties": value.jsonSchema(written: written)]
        case .object(let name, let fields):
            return Self.objectSchema(title: name, fields: fields, written: written)
        case .taggedUnion(let name, let cases):
            let variants = cases.map { item -> JSONValue in
                [
                    "type": "object",
                    "properties": .object([
                        JSONMember(
                            item.name,
                            item.value?.jsonSchema(written: written) ?? Self.objectSchema(title: "", fields: item.fields, written: written))
                    ]),
                    "required": [.string(item.name)],
                    "additionalProperties": false
                ]
            }
            var members = [JSONMember("oneOf", .array(variants))]
            if !name.isEmpty { members.insert(JSONMember("title", .string(name)), at: 0) }
            return .object(members)
        case .optional(let wrapped): return ["anyOf": [wrapped.jsonSchema(written: written), ["type": "null"]]]
        case .reference(let name):
            return ["title": .string(name), "description": .string("recursive: the same shape as the enclosing \(name)")]
        case .any: return .object([])
        }
    }

    static func objectSchema(title: String, fields: [Field], written: Bool) -> JSONValue {
        var members: [JSONMember] = [
            JSONMember("type", "object"),
            JSONMember("properties", .object(fields.map { JSONMember($0.name, $0.shape.jsonSchema(written: written)) })),
            JSONMember("required", .array(fields.filter { written || $0.required }.map { .string($0.name) })),
            JSONMember("additionalProperties", false)
        ]
        if !title.isEmpty { members.insert(JSONMember("title", .string(title)), at: 0) }
        return .object(members)
    }
}
