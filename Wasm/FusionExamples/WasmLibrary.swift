import FusionKit

/// The example library's features in its WebAssembly module (scripts/build-wasm).
///
/// For now a second list beside `fusionLibrary()`: Embedded Swift has no metatypes as
/// values, so `[Counter.self, …]` cannot build there, and the two lists are checked
/// against each other (Tests/wasm). The Profile waits for host requests under Embedded
/// Swift.
@_silgen_name("fusionkit_wasm_features")
public func wasmFeatures() -> [WasmFeatureBase] {
    [WasmFeature<Counter>(), WasmFeature<Answer>(), WasmFeature<Home>(), WasmFeature<WiFiSettings>()]
}
