/// What a library's WebAssembly module exports: its name, version and features, as its
/// registration declares them (`fusionkit_wasm_library`, the module's counterpart of the
/// native `fusionkit_library`).
public struct WasmLibrary {
    public let name: String
    public let version: String
    /// The features, in the order the library lists them.
    public let features: [WasmFeatureBase]

    /// A library called `name` at `version` with `features` (`WasmFeature<Counter>()`, …).
    public init(name: String, version: String, features: [WasmFeatureBase]) {
        self.name = name
        self.version = version
        self.features = features
    }

    /// The manifest, as the native library's `fk_manifest` writes it.
    var manifest: JSONValue {
        ManifestEntry.library(
            name: name, version: version, abiVersion: WasmLibrary.abiVersion, optionalFunctions: [],
            features: features.map { $0.manifest })
    }

    /// The ABI version the module's operations follow (include/fusionkit.h's FK_ABI_VERSION).
    static let abiVersion = 1
}
