import FusionHost

/// JSON Schema (as the manifest gives it) read back into short type names for people:
/// "integer", "string?", "[Network]", "on | off", and the fields of an object.
enum SchemaText {
    /// A one-line type name for a schema.
    static func typeName(_ schema: JSONValue) -> String {
        if let wrapped = optionalWrapped(schema) { return typeName(wrapped) + "?" }
        if let values = enumValues(schema) { return values.map { JSONValue.quoted($0) }.joined(separator: " | ") }
        if let title = schema["title"]?.stringValue, !title.isEmpty, schema["type"]?.stringValue != "array" {
            return title
        }
        switch schema["type"]?.stringValue {
        case "array"?:
            return "[" + (schema["items"].map(typeName) ?? "any") + "]"
        case "object"?:
            if let values = schema["additionalProperties"], values.members != nil {
                return "[string: \(typeName(values))]"
            }
            let fields = properties(schema)
            guard !fields.isEmpty else { return "{}" }
            return "{" + fields.map { "\($0.name): \(typeName($0.schema))" }.joined(separator: ", ") + "}"
        case let type?:
            return type
        case nil:
            if let variants = (schema["oneOf"] ?? schema["anyOf"])?.elements {
                return variants.map(typeName).joined(separator: " | ")
            }
            return "any"
        }
    }

    /// The properties of an object schema, in order, with whether each is required.
    static func properties(_ schema: JSONValue) -> [(name: String, schema: JSONValue, required: Bool)] {
        let required = Set((schema["required"]?.elements ?? []).compactMap(\.stringValue))
        return (schema["properties"]?.members ?? []).map { ($0.key, $0.value, required.contains($0.key)) }
    }

    /// The schema inside {"anyOf":[X, {"type":"null"}]}; nil if it is not that form.
    static func optionalWrapped(_ schema: JSONValue) -> JSONValue? {
        guard let variants = schema["anyOf"]?.elements, variants.count == 2 else { return nil }
        let nonNull = variants.filter { $0["type"]?.stringValue != "null" }
        return nonNull.count == 1 ? nonNull[0] : nil
    }

    static func enumValues(_ schema: JSONValue) -> [String]? {
        guard let values = schema["enum"]?.elements else { return nil }
        let strings = values.compactMap(\.stringValue)
        return strings.count == values.count ? strings : nil
    }

    /// True for a string field (optional or not): typed text should stay text.
    static func acceptsOnlyStrings(_ schema: JSONValue) -> Bool {
        (optionalWrapped(schema) ?? schema)["type"]?.stringValue == "string"
    }

    static func acceptsNull(_ schema: JSONValue) -> Bool {
        optionalWrapped(schema) != nil || schema["type"]?.stringValue == "null"
    }
}
