import FusionKit

/// The registration line: what libFusionExamples.so exports through the C ABI.
@ExportLibrary
public func fusionLibrary() -> FusionLibrary {
    FusionLibrary(
        name: "FusionExamples", version: "0.1.0", features: [Counter.self, Answer.self, Home.self, WiFiSettings.self, ProfileStore.self])
}
