import FusionJSON

/// Reads a manifest (`fk_manifest`) into the types a front end declares: each feature's
/// state from its `stateSchema` (the JSON Schema of what the library writes), its input
/// from its `inputs` (each case with its fields) and the name its `inputSchema` carries.
public enum ManifestTypes {
    /// The types of `manifest`'s features; only those named in `features` when it is given.
    public static func read(_ manifest: JSONValue, features wanted: [String]? = nil) throws(TypesError) -> LibraryTypes {
        guard let library = manifest["library"], let libraryName = library["name"]?.stringValue else {
            throw TypesError("the manifest has no library name (library.name)")
        }
        let all = manifest["features"]?.elements ?? []
        let names = all.compactMap { $0["name"]?.stringValue }
        if let wanted {
            for name in wanted where !names.contains(name) {
                throw TypesError("\(libraryName) has no feature \"\(name)\"; its features: \(names.joined(separator: ", "))")
            }
        }
        var reader = SchemaReader()
        var features: [FeatureTypes] = []
        for feature in all {
            guard let name = feature["name"]?.stringValue else { throw TypesError("a feature of \(libraryName) has no name") }
            if let wanted, !wanted.contains(name) { continue }
            let stem = SchemaReader.typeStem(ofFeature: name)
            guard let stateSchema = feature["stateSchema"] else { throw TypesError("feature \"\(name)\" has no stateSchema") }
            let state = reader.reference(stateSchema, suggestedName: "\(stem)State", note: "The state of \"\(name)\".")
            let input = reader.input(
                feature["inputs"]?.elements ?? [], named: feature["inputSchema"]?["title"]?.stringValue, stem: stem,
                note: "An input of \"\(name)\".")
            features.append(
                FeatureTypes(name: name, summary: feature["summary"]?.stringValue ?? "", state: state, input: input))
        }
        return LibraryTypes(
            libraryName: libraryName, product: libraryName, libraryVersion: library["version"]?.stringValue ?? "", features: features,
            declarations: reader.declarations)
    }
}

/// A JSON Schema as `Shape.jsonSchema` writes it, read back into types: a titled object,
/// string enum or `oneOf` is declared under its title; `anyOf [T, null]` is optional.
struct SchemaReader {
    private(set) var declarations: [Declaration] = []

    /// "wifi.connect" → "WifiConnect", "wifiToggled" → "WifiToggled": a name for a type
    /// its schema does not name, from the feature, case or field it belongs to.
    static func typeStem(ofFeature name: String) -> String {
        name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    mutating func reference(_ schema: JSONValue, suggestedName: String, note: String? = nil) -> TypeRef {
        if let variants = schema["anyOf"]?.elements, variants.count == 2,
            let nullAt = variants.firstIndex(where: { $0["type"]?.stringValue == "null" })
        {
            return .optional(reference(variants[1 - nullAt], suggestedName: suggestedName, note: note))
        }
        let title = schema["title"]?.stringValue ?? ""
        if let variants = schema["oneOf"]?.elements {
            let name = title.isEmpty ? suggestedName : title
            let cases = variants.compactMap { variant -> UnionCase? in
                guard let member = variant["properties"]?.members?.first else { return nil }
                let payload = member.value
                if payload["type"]?.stringValue == "object", payload["title"] == nil, payload["properties"] != nil {
                    return UnionCase(name: member.key, payload: .fields(properties(payload, owner: name + "." + member.key)))
                }
                return UnionCase(
                    name: member.key, payload: .value(reference(payload, suggestedName: name + Self.typeStem(ofFeature: member.key))))
            }
            return .named(declare(name, .union(cases), note: note))
        }
        switch schema["type"]?.stringValue {
        case "boolean": return .boolean
        case "integer": return .integer
        case "number": return .number
        case "null": return .optional(.any)
        case "string":
            guard let values = schema["enum"]?.elements?.compactMap(\.stringValue) else { return .string }
            return title.isEmpty ? .strings(values) : .named(declare(title, .strings(values), note: note))
        case "array":
            return .array(schema["items"].map { reference($0, suggestedName: suggestedName + "Element") } ?? .any)
        case "object":
            if schema["properties"] == nil, let values = schema["additionalProperties"], values.boolValue == nil {
                return .dictionary(reference(values, suggestedName: suggestedName + "Value"))
            }
            if title.isEmpty { return .object(properties(schema, owner: suggestedName)) }
            // A recursive type refers to itself by title (`Shape.reference`), so its fields
            // can be read before it is declared: what a type uses comes before it.
            return .named(declare(title, .object(properties(schema, owner: title)), note: note))
        default:
            // `Shape.reference`: the enclosing type of the same name (a recursive type).
            if !title.isEmpty, schema.members?.count == 2, schema["description"] != nil { return .named(title) }
            return .any
        }
    }

    mutating func input(_ cases: [JSONValue], named title: String?, stem: String, note: String) -> String {
        let name = title.flatMap { $0.isEmpty ? nil : $0 } ?? "\(stem)Input"
        let read = cases.compactMap { item -> InputCase? in
            guard let caseName = item["name"]?.stringValue else { return nil }
            let fields = (item["fields"]?.elements ?? []).compactMap { field -> Property? in
                guard let fieldName = field["name"]?.stringValue else { return nil }
                let type =
                    field["schema"].map { reference($0, suggestedName: Self.typeStem(ofFeature: caseName + "." + fieldName)) } ?? .any
                return Property(name: fieldName, type: type, required: field["required"]?.boolValue ?? true)
            }
            let value = item["value"]?["schema"].map { reference($0, suggestedName: Self.typeStem(ofFeature: caseName)) }
            return InputCase(name: caseName, fields: fields, value: value)
        }
        return declare(name, .input(read), note: note)
    }

    private mutating func properties(_ schema: JSONValue, owner: String) -> [Property] {
        let required = Set((schema["required"]?.elements ?? []).compactMap(\.stringValue))
        return (schema["properties"]?.members ?? []).map { member in
            Property(
                name: member.key, type: reference(member.value, suggestedName: owner + Self.typeStem(ofFeature: member.key)),
                required: required.contains(member.key))
        }
    }

    /// Declares `body` as `name`, once: the same type met again is the same declaration;
    /// another type of the same name gets a number ("State2"), so none is lost.
    private mutating func declare(_ name: String, _ body: Declaration.Body, note: String?) -> String {
        var candidate = name
        var number = 1
        while let existing = declarations.first(where: { $0.name == candidate }) {
            if existing.body == body { return candidate }
            number += 1
            candidate = "\(name)\(number)"
        }
        declarations.append(Declaration(name: candidate, body: body, note: note))
        return candidate
    }
}

/// A manifest the generator cannot read, or a feature it does not have.
public struct TypesError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
