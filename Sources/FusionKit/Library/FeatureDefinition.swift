/// A feature as a library exports it: its name, its description, and how to make an
/// instance that speaks JSON. This is the boundary between typed Swift and the C ABI.
public struct FeatureDefinition: Sendable {
    public let name: String
    public let summary: String
    public let inputShape: Shape
    public let stateShape: Shape
    public let inputs: InputCatalog
    /// The version of the state's JSON shape (`Feature.stateVersion`).
    public let stateVersion: Int
    /// What the option `"settings"` may hold (`Feature.settings`).
    public let settings: [FeatureSetting]
    @usableFromInline let make: @Sendable (Environment, JSONValue?, Int?, UInt64) throws(FusionError) -> any FeatureInstance

    /// Inlined into the library that lists the feature, so that the instances it makes
    /// run code specialized for `F` (see `JSONStore`).
    @inlinable
    public init<F: Feature>(_ type: F.Type) {
        name = F.name
        summary = F.summary
        stateVersion = F.stateVersion
        settings = F.settings
        // The shapes `@JSONCoded` wrote from the declarations: cases in the order declared,
        // the same in the native library and the WebAssembly module.
        inputShape = F.Input.jsonShape
        stateShape = F.State.jsonShape
        let inputs = InputCatalog(featureName: F.name, shape: inputShape)
        self.inputs = inputs
        // Decoded on the first instance: a manifest does not need them.
        let reader = MadeOnce { InputReader<F>(inputs) }
        make = { (environment, state, stateVersion, version) throws(FusionError) in
            let feature = F(environment: environment)
            return JSONStore<F>(
                store: Store(
                    feature: feature,
                    state: try state.map { (given) throws(FusionError) in
                        try StateRestoration.restore(feature, given, savedAt: stateVersion)
                    },
                    version: version,
                    host: environment.host,
                    // On a manual clock the instance runs its effects itself (Store.settle).
                    effectExecutor: environment.clock is ManualClock ? EffectExecutor() : nil),
                reader: reader.value, environment: environment)
        }
    }

    /// A new instance, from its initial state or from `state` (the JSON of a state saved
    /// at `stateVersion`; nil: this feature's current one).
    public func makeInstance(environment: Environment = .live, state: JSONValue? = nil, stateVersion: Int? = nil) throws(FusionError)
        -> any FeatureInstance
    {
        try make(environment, state, stateVersion, 0)
    }

    /// A new instance as the creation options describe it.
    public func makeInstance(options: InstanceOptions) throws(FusionError) -> any FeatureInstance {
        try FeatureSetting.check(options.settings, declared: settings, feature: name)
        let instance = try make(options.makeEnvironment(), options.state, options.stateVersion, options.checkpoint?.version ?? 0)
        if options.history > 0 { instance.keepHistory(limit: options.history) }
        // From a checkpoint, the feature starts again what it stopped there, as the instance
        // the checkpoint was taken of did right after (see fk_restart_effects).
        if options.checkpoint != nil { try instance.restartEffects() }
        return instance
    }

    /// This feature's entry in the manifest.
    public var manifest: JSONValue {
        ManifestEntry.feature(
            name: name, summary: summary, stateVersion: stateVersion, settings: settings, inputs: inputs,
            inputShape: inputShape, stateShape: stateShape)
    }
}
