/// A feature as a WebAssembly module offers it: its name, and how an instance is made
/// from creation options. Made for each feature type at compile time (Embedded Swift
/// has no metatypes as values, so a library lists `WasmFeature<Counter>()`, not
/// `Counter.self`).
/// A feature's entry, whatever its type (see `WasmFeature`).
public class WasmFeatureBase {
    var name: String { "" }
    /// The feature's entry in the manifest, as the native library writes it.
    var manifest: JSONValue { .null }
    func makeInstance(options: InstanceOptions) throws(FusionError) -> WasmInstanceBase { WasmInstanceBase() }
}

public final class WasmFeature<F: Feature>: WasmFeatureBase {
    /// The entry for `F`.
    override public init() {}

    override var name: String { F.name }

    override var manifest: JSONValue {
        ManifestEntry.feature(
            name: F.name, summary: F.summary, stateVersion: F.stateVersion, settings: F.settings,
            inputs: InputCatalog(featureName: F.name, shape: F.Input.jsonShape),
            inputShape: F.Input.jsonShape, stateShape: F.State.jsonShape)
    }

    override func makeInstance(options: InstanceOptions) throws(FusionError) -> WasmInstanceBase {
        try FeatureSetting.check(options.settings, declared: F.settings, feature: F.name)
        let clock = ManualClock()
        let environment = Environment(
            clock: clock, random: RandomSource(seed: options.seed), settings: options.settings, user: options.user)
        let feature = F(environment: environment)
        var state = feature.initialState
        if let given = options.state {
            state = try StateRestoration.restore(feature, given, savedAt: options.stateVersion)
        } else {
            feature.deriveValues(in: &state)
        }
        let instance = WasmInstance(feature: feature, clock: clock, state: state)
        instance.onSystemClock = options.clock == .system
        instance.requestMode = options.requests
        if options.history > 0 { instance.timeline = Timeline(limit: options.history, version: 0, state: state) }
        return instance
    }
}
