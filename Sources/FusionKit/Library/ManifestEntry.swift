/// A library's manifest and each feature's entry in it (docs/typed-front-ends.md), written in one place for
/// the native library (`FeatureDefinition.manifest`) and the WebAssembly module
/// (`fk_manifest`): its name, summary, state version, settings, the inputs with their fields and
/// types, the input's wire schema and the state's written schema.
public enum ManifestEntry {
    /// The manifest of a library: its name and version, the ABI version it speaks, the
    /// optional functions it exports, and its features' entries.
    public static func library(
        name: String, version: String, abiVersion: Int, optionalFunctions: [String], features: [JSONValue]
    ) -> JSONValue {
        [
            "abiVersion": .integer(abiVersion),
            "library": ["name": .string(name), "version": .string(version)],
            "optionalFunctions": .array(optionalFunctions.map(JSONValue.string)),
            "features": .array(features)
        ]
    }

    /// The entry of a feature called `name`, whose inputs are `inputs` (read from
    /// `inputShape`) and whose state has the shape `stateShape`.
    public static func feature(
        name: String, summary: String, stateVersion: Int, settings: [FeatureSetting], inputs: InputCatalog, inputShape: Shape,
        stateShape: Shape
    ) -> JSONValue {
        [
            "name": .string(name),
            "summary": .string(summary),
            "stateVersion": .integer(stateVersion),
            "settings": .array(settings.map { $0.manifest }),
            "inputs": .array(inputs.cases.map(entry)),
            "inputSchema": inputs.wireSchema(title: inputShape.title),
            "stateSchema": stateShape.writtenJSONSchema
        ]
    }

    /// One input case: its name, its fields (name, type, whether required, schema), and
    /// for a case with one unlabeled value, that value's type and schema.
    static func entry(_ item: InputCatalog.Case) -> JSONValue {
        var members: [JSONMember] = [
            JSONMember("name", .string(item.name)),
            JSONMember(
                "fields",
                .array(
                    item.fields.map { field in
                        [
                            "name": .string(field.name),
                            "type": .string(field.shape.typeName),
                            "required": .bool(field.required),
                            "schema": field.shape.jsonSchema
                        ]
                    }))
        ]
        if let value = item.value {
            members.append(JSONMember("value", ["type": .string(value.typeName), "schema": value.jsonSchema]))
        }
        return .object(members)
    }
}
