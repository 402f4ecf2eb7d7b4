#if hasFeature(Embedded)
    /// A library's registration line: its name, version and features, written once for
    /// both builds.
    ///
    ///     #exportLibrary(name: "MyFeatures", version: "1.0.0", features: Counter.self, Answer.self)
    ///
    /// Under Embedded Swift it declares the WebAssembly module's entry point
    /// (`fusionkit_wasm_library`), listing `WasmFeature<Counter>()`, … (Embedded Swift has
    /// no metatypes as values; the arguments are read as written, never run).
    @freestanding(declaration, names: named(_fusionkitWasmLibrary))
    public macro exportLibrary(name: String, version: String, features: any Feature.Type...) =
        #externalMacro(module: "FusionMacros", type: "ExportWasmLibraryMacro")
#else
    /// A library's registration line: its name, version and features, written once for
    /// both builds.
    ///
    ///     #exportLibrary(name: "MyFeatures", version: "1.0.0", features: Counter.self, Answer.self)
    ///
    /// Natively it declares `fusionLibrary()`, which returns the `FusionLibrary`, and the
    /// C ABI's entry point (`fusionkit_library`, which FusionABI calls); in the
    /// WebAssembly build, the module's (docs/wasm.md). One per library.
    @freestanding(declaration, names: named(fusionLibrary), named(_fusionkitLibraryEntry))
    public macro exportLibrary(name: String, version: String, features: any Feature.Type...) =
        #externalMacro(module: "FusionMacros", type: "ExportLibraryDeclarationMacro")

    /// Marks the function that returns a library's `FusionLibrary` as the one the C ABI
    /// exports (as `fusionkit_library`, the symbol FusionABI calls). One per library.
    /// Native only: a library that also builds to WebAssembly registers with
    /// `#exportLibrary(name:version:features:)`, which serves both builds.
    @attached(peer, names: named(_fusionkitLibraryEntry))
    public macro ExportLibrary() = #externalMacro(module: "FusionMacros", type: "ExportLibraryMacro")
#endif
