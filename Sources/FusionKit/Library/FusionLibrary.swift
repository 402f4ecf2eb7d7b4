/// What a plugin library exports: its name, version and features.
///
/// A library declares it once, in the one registration line the C ABI looks for:
///
///     @_silgen_name("fusionkit_library")
///     public func fusionLibrary() -> FusionLibrary {
///         FusionLibrary(name: "MyFeatures", version: "1.0.0", features: [Counter.self])
///     }
public struct FusionLibrary: Sendable {
    public let name: String
    public let version: String
    public let features: [FeatureDefinition]

    public init(name: String, version: String, features: [any Feature.Type]) {
        self.name = name
        self.version = version
        self.features = features.map { $0._fusionDefinition() }
    }

    public func feature(named name: String) -> FeatureDefinition? {
        features.first { $0.name == name }
    }

    /// The manifest: the library, the ABI version it speaks, the optional functions of
    /// the header it exports (those a host may not count on: see include/fusionkit.h),
    /// and every feature.
    public func manifest(abiVersion: Int, optionalFunctions: [String] = []) -> JSONValue {
        [
            "abiVersion": .integer(abiVersion),
            "library": ["name": .string(name), "version": .string(version)],
            "optionalFunctions": .array(optionalFunctions.map(JSONValue.string)),
            "features": .array(features.map(\.manifest)),
        ]
    }
}
