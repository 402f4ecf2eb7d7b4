import FusionKit

/// The registration line: what libFusionExamples.so exports through the C ABI, and the
/// WebAssembly module through its exports (one list for both builds).
#exportLibrary(
    name: "FusionExamples", version: "0.1.0", features: Counter.self, Answer.self, Home.self, WiFiSettings.self, ProfileStore.self)
