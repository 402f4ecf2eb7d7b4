import FusionKit

/// The example library in its WebAssembly module (scripts/build-wasm).
///
/// For now a second list beside `fusionLibrary()`: Embedded Swift has no metatypes as
/// values, so `[Counter.self, …]` cannot build there, and the two lists are checked
/// against each other (Tests/wasm).
@_silgen_name("fusionkit_wasm_library")
public func wasmLibrary() -> WasmLibrary {
    WasmLibrary(
        name: "FusionExamples", version: "0.1.0",
        features: [
            WasmFeature<Counter>(), WasmFeature<Answer>(), WasmFeature<Home>(), WasmFeature<WiFiSettings>(),
            WasmFeature<ProfileStore>()
        ])
}
