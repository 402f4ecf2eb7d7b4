import CFusionKit

/// What a `HostedLibrary` calls: one Swift function per C function of include/fusionkit.h,
/// with its C meaning (handles, versions, callbacks and statuses as the header says).
///
/// A native library is called through libffi (`ForeignCalls`); a WebAssembly module runs
/// in a sandbox (FusionSandbox's `SandboxedLibrary`) that answers the same calls, so every
/// host above this (`HostedInstance`, journals, the bridge, scenarios) drives either
/// without knowing which. A failed call throws `FusionHostError.failed` with the status
/// and the library's message, and a function the library lacks throws `missingEntryPoint`.
public protocol LibraryBackend: Sendable {
    /// The functions of the header this backend answers, by symbol ("fk_state_patch").
    var exportedSymbols: Set<String> { get }

    func abiVersion() -> UInt32
    func libraryVersion() -> String
    func statusName(_ status: Int32) -> String
    /// The message of the calling thread's last failed call; "" after one that succeeded.
    func lastErrorMessage() -> String
    func manifest() throws(FusionHostError) -> String
    func manifestSummary() throws(FusionHostError) -> String
    func featureManifest(_ feature: String) throws(FusionHostError) -> String

    func create(feature: String, stateJSON: String?) throws(FusionHostError) -> UInt64
    func createWithOptions(feature: String, optionsJSON: String?) throws(FusionHostError) -> UInt64
    func destroy(_ instance: UInt64) throws(FusionHostError)
    func send(_ instance: UInt64, _ inputJSON: String) throws(FusionHostError)
    func state(_ instance: UInt64) throws(FusionHostError) -> (json: String, version: UInt64)
    func statePatch(_ instance: UInt64, since: UInt64) throws(FusionHostError) -> (json: String, version: UInt64)
    func version(_ instance: UInt64) throws(FusionHostError) -> UInt64
    func subscribe(_ instance: UInt64, _ callback: fk_change_fn?, _ userData: UnsafeRawPointer?) throws(FusionHostError) -> UInt64
    func unsubscribe(_ instance: UInt64, _ subscription: UInt64) throws(FusionHostError)

    func advanceClock(_ instance: UInt64, nanoseconds: UInt64) throws(FusionHostError)
    /// Nanoseconds until a sleeping effect wakes; `UInt64.max` when none sleeps.
    func nextWake(_ instance: UInt64) throws(FusionHostError) -> UInt64
    func pending(_ instance: UInt64) throws(FusionHostError) -> (effects: UInt64, requests: UInt64)

    func setRequestHandler(_ instance: UInt64, _ handler: fk_request_fn?, _ userData: UnsafeRawPointer?) throws(FusionHostError)
    func pollRequest(_ instance: UInt64) throws(FusionHostError) -> String?
    func respond(_ instance: UInt64, requestID: UInt64, resultJSON: String) throws(FusionHostError)
    func failRequest(_ instance: UInt64, requestID: UInt64, message: String) throws(FusionHostError)

    func history(_ instance: UInt64) throws(FusionHostError) -> String
    func checkpoint(_ instance: UInt64) throws(FusionHostError) -> String
    func restartEffects(_ instance: UInt64) throws(FusionHostError)
    func goto(_ instance: UInt64, version: UInt64) throws(FusionHostError) -> UInt64

    /// fk_limit: the old value (-1 for an unknown limit); a negative new value only reads.
    func limit(_ id: Int32, _ newValue: Int64) throws(FusionHostError) -> Int64

    /// Makes an instance that failed on a fault go on from its last good state, at the same
    /// version (a sandbox only; a native library throws `missingEntryPoint`).
    func recover(_ instance: UInt64) throws(FusionHostError)

    /// Whether the library's code runs in a sandbox whose faults fail one call (a trap,
    /// a budget run out) instead of the process: the bridge then needs no poison replay.
    var isSandboxed: Bool { get }
}
