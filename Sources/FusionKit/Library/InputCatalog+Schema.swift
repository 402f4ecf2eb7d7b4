extension InputCatalog {
    /// The JSON Schema of an input as a front end sends it (the manifest's `inputSchema`):
    /// what `normalize` accepts, not only what the Swift type decodes. A case that needs
    /// no field may be sent bare (`"joinButtonTapped"`), as an object of its fields, or
    /// with `null` for them; a case with one unlabeled value as `{"case": value}`.
    func wireSchema(title: String) -> JSONValue {
        var variants: [JSONValue] = []
        let bare = cases.filter { $0.value == nil && !$0.fields.contains(where: { $0.required }) }.map { JSONValue.string($0.name) }
        if !bare.isEmpty { variants.append(["type": "string", "enum": .array(bare)]) }
        for item in cases {
            var payload: JSONValue
            if let value = item.value {
                payload = value.jsonSchema
            } else {
                payload = Shape.objectSchema(title: "", fields: item.fields, written: false)
                if !item.fields.contains(where: { $0.required }) { payload = ["anyOf": [payload, ["type": "null"]]] }
            }
            variants.append([
                "type": "object",
                "properties": .object([JSONMember(item.name, payload)]),
                "required": [.string(item.name)],
                "additionalProperties": false
            ])
        }
        var members = [JSONMember("oneOf", .array(variants))]
        if !title.isEmpty { members.insert(JSONMember("title", .string(title)), at: 0) }
        return .object(members)
    }
}
