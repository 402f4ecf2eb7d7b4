/// A feature as a library exports it: its name, its description, and how to make an
/// instance that speaks JSON. This is the boundary between typed Swift and the C ABI.
public struct FeatureDefinition: Sendable {
    public let name: String
    public let summary: String
    public let inputShape: Shape
    public let stateShape: Shape
    public let inputs: InputCatalog
    private let make: @Sendable (Environment, JSONValue?) throws(FusionError) -> any FeatureInstance

    public init<F: Feature>(_ type: F.Type) {
        name = F.name
        summary = F.summary
        inputShape = ShapeRecorder.shape(of: F.Input.self)
        stateShape = ShapeRecorder.shape(of: F.State.self)
        let inputs = InputCatalog(featureName: F.name, shape: inputShape)
        self.inputs = inputs
        let fieldless = FieldlessInputs<F>(inputs)
        make = { (environment, state) throws(FusionError) in
            let initial: F.State?
            if let state {
                do {
                    initial = try JSONValueDecoder().decode(F.State.self, from: state)
                } catch {
                    throw FusionError(.invalidState, "the given state does not fit feature \"\(F.name)\": \(error)")
                }
            } else {
                initial = nil
            }
            return JSONStore<F>(
                store: Store(feature: F(environment: environment), state: initial, host: environment.host), inputs: inputs, fieldless: fieldless,
                environment: environment)
        }
    }

    /// A new instance, from its initial state or from `state` (the JSON of a state).
    public func makeInstance(environment: Environment = .live, state: JSONValue? = nil) throws(FusionError) -> any FeatureInstance {
        try make(environment, state)
    }

    /// A new instance as the creation options describe it.
    public func makeInstance(options: InstanceOptions) throws(FusionError) -> any FeatureInstance {
        try make(options.makeEnvironment(), options.state)
    }

    /// This feature's entry in the manifest.
    public var manifest: JSONValue {
        [
            "name": .string(name),
            "summary": .string(summary),
            "inputs": .array(inputs.cases.map { item in
                var entry: JSONValue = [
                    "name": .string(item.name),
                    "fields": .array(item.fields.map { field in
                        [
                            "name": .string(field.name),
                            "type": .string(field.shape.typeName),
                            "required": .bool(field.required),
                            "schema": field.shape.jsonSchema,
                        ]
                    }),
                ]
                if let value = item.value, case .object(var members) = entry {
                    members.append(JSONMember("value", ["type": .string(value.typeName), "schema": value.jsonSchema]))
                    entry = .object(members)
                }
                return entry
            }),
            "inputSchema": inputShape.jsonSchema,
            "stateSchema": stateShape.jsonSchema,
        ]
    }
}
