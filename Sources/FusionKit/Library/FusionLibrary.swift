/// What a plugin library exports: its name, version and features.
///
/// A library declares it once, in its registration line, which the C ABI finds the
/// library through (and which builds the WebAssembly module's registration too):
///
///     #exportLibrary(name: "MyFeatures", version: "1.0.0", features: Counter.self)
public struct FusionLibrary: Sendable {
    public let name: String
    public let version: String
    /// Each feature's name, summary and state version, in the order the library lists
    /// them: known without describing any feature.
    public let featureSummaries: [FeatureSummary]
    private let definitions: FeatureDefinitions

    public init(name: String, version: String, features: [any Feature.Type]) {
        self.name = name
        self.version = version
        featureSummaries = features.map(FeatureSummary.init)
        definitions = FeatureDefinitions(features)
    }

    /// Every feature, described: the first call describes those no one has asked for yet.
    public var features: [FeatureDefinition] { definitions.all }

    /// The feature called `name`, described on first use; the others are not touched.
    public func feature(named name: String) -> FeatureDefinition? {
        featureSummaries.firstIndex { $0.name == name }.map(definitions.definition(at:))
    }

    /// The manifest: the library, the ABI version it speaks, the optional functions of
    /// the header it exports (those a host may not count on: see include/fusionkit.h),
    /// and every feature, described.
    public func manifest(abiVersion: Int, optionalFunctions: [String] = []) -> JSONValue {
        header(abiVersion: abiVersion, optionalFunctions: optionalFunctions, features: features.map(\.manifest))
    }

    /// The manifest without the features' inputs and schemas (fk_manifest_summary): each
    /// feature's name, summary and state version. Describes nothing.
    public func manifestSummary(abiVersion: Int, optionalFunctions: [String] = []) -> JSONValue {
        header(abiVersion: abiVersion, optionalFunctions: optionalFunctions, features: featureSummaries.map(\.manifest))
    }

    private func header(abiVersion: Int, optionalFunctions: [String], features: [JSONValue]) -> JSONValue {
        ManifestEntry.library(
            name: name, version: version, abiVersion: abiVersion, optionalFunctions: optionalFunctions, features: features)
    }
}
