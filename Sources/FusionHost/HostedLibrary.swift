import CFusionKit

/// A FusionKit library loaded at run time: any shared object that exports the C ABI of
/// include/fusionkit.h, seen only through that ABI.
///
/// Loading checks the ABI version before any other call, refuses a library lacking a
/// required entry point by name, prepares a libffi call for each entry point once, and
/// reads the manifest's summary (fk_manifest_summary: no feature is described yet; a
/// library without it gives its whole manifest). A feature's inputs and schemas are read
/// when first asked for (`feature(named:)`), the whole manifest likewise (`manifest()`).
/// Several libraries (even copies of one file under other names)
/// can be loaded side by side; each keeps its own features and instances.
///
/// A library stays loaded until the process ends: its features may have left threads
/// and Swift runtime metadata behind that point into it, so unloading is never safe.
public final class HostedLibrary: Sendable {
    /// The ABI version this host was compiled against (FK_ABI_VERSION).
    public static let hostABIVersion = UInt32(FK_ABI_VERSION)

    public let path: String
    /// The ABI version the library speaks; equal to `hostABIVersion` once loaded.
    public let abiVersion: UInt32
    /// The library, its optional functions, and each feature's name, summary and state
    /// version: read at load.
    public let summary: ManifestSummary
    /// What answers the calls: libffi into a native library, or a sandbox.
    private let backend: any LibraryBackend
    private let symbols: Set<String>
    /// What has been read of the features' descriptions so far.
    private let described: LockedValue<Described>

    private struct Described {
        var manifest: Manifest?
        var features: [String: Manifest.Feature] = [:]
    }

    /// Loads a native shared library (dlopen) and prepares a libffi call per entry point.
    public convenience init(path: String) throws(FusionHostError) {
        let library = try DynamicLibrary(path: path)
        do throws(FusionHostError) {
            try self.init(path: path, backend: try Self.foreignCalls(library, path: path))
        } catch {
            library.close()  // refused: nothing of it ran besides fk_abi_version and its manifest
            throw error
        }
    }

    /// A library whose calls `backend` answers (a sandboxed WebAssembly module, say):
    /// reads its manifest's summary (or its whole manifest) as a native library's.
    public init(path: String, backend: any LibraryBackend) throws(FusionHostError) {
        let version = backend.abiVersion()
        guard version == Self.hostABIVersion else {
            throw FusionHostError.abiMismatch(path: path, library: version, host: Self.hostABIVersion)
        }
        self.path = path
        self.abiVersion = version
        self.backend = backend
        self.symbols = backend.exportedSymbols
        if symbols.contains(EntryPoint.manifestSummary.symbol) {
            let json = try Self.readJSON(try backend.manifestSummary(), path: path)
            summary = try Self.checked(path) { () throws(ManifestError) in try ManifestSummary(json: json) }
            described = LockedValue(Described())
        } else {
            let manifest = try Self.readManifest(backend, path: path)
            summary = manifest.summary
            described = LockedValue(Described(manifest: manifest))
        }
    }

    private static func foreignCalls(_ library: DynamicLibrary, path: String) throws(FusionHostError) -> ForeignCalls {
        // The version first: a library of another ABI may give the other functions
        // other meanings, so nothing else is called (or even looked up) before this.
        let versionFunction = try Self.prepare(.abiVersion, in: library)
        let version = versionFunction.call().uint32
        guard version == Self.hostABIVersion else {
            throw FusionHostError.abiMismatch(path: path, library: version, host: Self.hostABIVersion)
        }
        var functions: [EntryPoint: ForeignFunction] = [.abiVersion: versionFunction]
        for entryPoint in EntryPoint.allCases where entryPoint != .abiVersion {
            if library.symbol(entryPoint.symbol) == nil && !entryPoint.isRequired { continue }
            functions[entryPoint] = try Self.prepare(entryPoint, in: library)
        }
        return ForeignCalls(functions: functions, path: path)
    }

    private static func prepare(_ entryPoint: EntryPoint, in library: DynamicLibrary) throws(FusionHostError) -> ForeignFunction {
        guard let address = library.symbol(entryPoint.symbol) else {
            throw .missingEntryPoint(path: library.path, symbol: entryPoint.symbol)
        }
        return try ForeignFunction(entryPoint, address: address)
    }

    private static func readManifest(_ backend: any LibraryBackend, path: String) throws(FusionHostError) -> Manifest {
        let json = try readJSON(try backend.manifest(), path: path)
        return try checked(path) { () throws(ManifestError) in try Manifest(json: json) }
    }

    private static func readJSON(_ text: String, path: String) throws(FusionHostError) -> JSONValue {
        do throws(JSONParseError) {
            return try JSONParser.parse(text)
        } catch {
            throw .invalidManifest(path: path, reason: "not JSON: \(error)")
        }
    }

    private static func checked<T>(_ path: String, _ read: () throws(ManifestError) -> T) throws(FusionHostError) -> T {
        do throws(ManifestError) {
            return try read()
        } catch {
            throw .invalidManifest(path: path, reason: error.description)
        }
    }

    /// The whole manifest (fk_manifest), read on first use: it describes every feature.
    public func manifest() throws(FusionHostError) -> Manifest {
        if let known = described.withLock({ $0.manifest }) { return known }
        let manifest = try Self.readManifest(backend, path: path)
        return described.withLock { described in
            if let known = described.manifest { return known }
            described.manifest = manifest
            return manifest
        }
    }

    /// The feature called `name`, with its inputs and schemas (fk_feature_manifest, or
    /// the whole manifest of a library without it), read on first use; nil if the library
    /// has no such feature.
    public func feature(named name: String) throws(FusionHostError) -> Manifest.Feature? {
        guard summary.feature(named: name) != nil else { return nil }
        if let known = described.withLock({ $0.manifest?.feature(named: name) ?? $0.features[name] }) { return known }
        guard symbols.contains(EntryPoint.featureManifest.symbol) else {
            guard let listed = try manifest().feature(named: name) else {
                throw .invalidManifest(path: path, reason: "the summary lists \"\(name)\" and the manifest does not")
            }
            return listed
        }
        let json = try Self.readJSON(try calls.featureManifest(name), path: path)
        let feature = try Self.checked(path) { () throws(ManifestError) in try Manifest.Feature(json: json, at: "feature \"\(name)\"") }
        guard feature.name == name else {
            throw .invalidManifest(path: path, reason: "asked for \"\(name)\", the library described \"\(feature.name)\"")
        }
        described.withLock { $0.features[name] = feature }
        return feature
    }

    var calls: any LibraryBackend { backend }

    /// Whether the library runs in a sandbox (a WebAssembly module): a fault in it fails
    /// one call and marks its instance failed, never the process.
    public var isSandboxed: Bool { backend.isSandboxed }

    /// Every function of include/fusionkit.h this host knows, in header order.
    public static var abiFunctions: [String] { EntryPoint.allCases.map(\.symbol) }

    /// The entry points of include/fusionkit.h this library exports, in header order.
    public var exportedEntryPoints: [String] {
        EntryPoint.allCases.map(\.symbol).filter(symbols.contains)
    }

    /// Whether the library exports a function of the header, e.g. "fk_advance_clock".
    public func exports(_ symbol: String) -> Bool {
        symbols.contains(symbol)
    }

    // MARK: The library's functions

    /// fk_abi_version(): asked again (loading already checked it).
    public func libraryABIVersion() -> UInt32 {
        calls.abiVersion()
    }

    /// fk_library_version(), e.g. "0.1.0".
    public var libraryVersion: String {
        calls.libraryVersion()
    }

    /// fk_status_name(), e.g. "FK_ERR_UNKNOWN_INPUT".
    public func statusName(_ status: FusionStatus) -> String {
        calls.statusName(status.rawValue)
    }

    /// fk_last_error_message() of the calling thread: "" after a call that succeeded.
    public func lastErrorMessage() -> String {
        calls.lastErrorMessage()
    }

    /// fk_manifest() as text, freshly asked.
    public func manifestJSON() throws(FusionHostError) -> String {
        try calls.manifest()
    }

    /// Creates an instance of a feature (fk_create), from its initial state or from
    /// `stateJSON` (the shape `HostedInstance.state()` returns).
    public func create(feature: String, stateJSON: String? = nil) throws(FusionHostError) -> HostedInstance {
        let handle = try calls.create(feature: feature, stateJSON: stateJSON)
        return HostedInstance(library: self, feature: feature, handle: handle)
    }

    /// Creates an instance with options (fk_create_with_options): "state", "seed",
    /// "clock", "requests", "settings"; see the header. Throws `missingEntryPoint` for a
    /// library that predates it.
    public func create(feature: String, optionsJSON: String?) throws(FusionHostError) -> HostedInstance {
        let handle = try calls.createWithOptions(feature: feature, optionsJSON: optionsJSON)
        return HostedInstance(library: self, feature: feature, handle: handle)
    }

    /// As `create(feature:optionsJSON:)`, with the options as a JSON value.
    public func create(feature: String, options: JSONValue) throws(FusionHostError) -> HostedInstance {
        try create(feature: feature, optionsJSON: options.jsonText)
    }

    // MARK: Limits

    /// fk_limit(): reads the library's limit `id` (an FK_LIMIT_ constant) or, with
    /// `newValue`, sets it; returns the value before, -1 for an id the library does not
    /// know. Throws `missingEntryPoint` for a library that predates limits.
    @discardableResult
    public func limit(_ id: Int32, _ newValue: Int64? = nil) throws(FusionHostError) -> Int64 {
        try calls.limit(id, newValue ?? -1)
    }
}
