/// The calls on every round trip (send, read the state or a patch, both at once), on a class rather
/// than only through the `FeatureInstance` protocol: the C ABI's instance table makes them
/// on an instance it takes no reference to (`Unmanaged`, while its slot counts the call
/// in). A protocol call on an existential read from memory takes a reference and gives it
/// back: two atomic operations on each call, a share of the round trip that
/// docs/performance.md measures.
/// `JSONStore` is the one subclass; `FeatureInstance.core` is the instance itself.
public class InstanceCore: @unchecked Sendable {
    /// The instance's clock when it is manual: a call that may set effects going then runs
    /// them until they settle before it returns (`JSONStore.answering`).
    @usableFromInline let clock: ManualClock?
    /// Applies an input given as JSON, when there is one, and, when given a buffer, writes
    /// the state right after it there (see `Store.sendAndWrite`): send, send and read,
    /// or read. One closure for all three: each closure capturing more than the store is
    /// an allocation per instance.
    @usableFromInline let apply:
        @Sendable (UnsafeRawBufferPointer?, _ into: UnsafeMutableRawBufferPointer?) throws(FusionError) -> (length: Int, version: UInt64)?
    /// The state as JSON (nil) or what changed since a version (`Store.patch`): one closure
    /// for both, as `apply` is one.
    @usableFromInline let readState: @Sendable (_ patchSince: UInt64?) throws(FusionError) -> (bytes: [UInt8], version: UInt64)
    /// `Store.mallocState`, specialized (a closure capturing only the store costs no allocation).
    @usableFromInline let readMalloced: @Sendable () throws(FusionError) -> (memory: UnsafeMutableRawPointer, length: Int, version: UInt64)?

    @usableFromInline
    init(
        clock: ManualClock?,
        apply:
            @escaping @Sendable (UnsafeRawBufferPointer?, _ into: UnsafeMutableRawBufferPointer?) throws(FusionError) -> (
                length: Int, version: UInt64
            )?,
        readState: @escaping @Sendable (_ patchSince: UInt64?) throws(FusionError) -> (bytes: [UInt8], version: UInt64),
        readMalloced: @escaping @Sendable () throws(FusionError) -> (memory: UnsafeMutableRawPointer, length: Int, version: UInt64)?
    ) {
        self.clock = clock
        self.apply = apply
        self.readState = readState
        self.readMalloced = readMalloced
    }

    /// Applies one input given as UTF-8 JSON. Bad input throws and changes nothing.
    public final func send(json: UnsafeRawBufferPointer) throws(FusionError) {
        if clock == nil {
            _ = try apply(json, nil)
        } else {
            _ = try applySettling(json, nil)
        }
    }

    /// `send(json:)`, then the state right after that input written into `buffer` (see
    /// `Store.sendAndWrite`: the JSON and a NUL when they fit; the length either way).
    public final func sendAndWriteState(json: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) throws(FusionError)
        -> (length: Int, version: UInt64)
    {
        // (Always a result when given a buffer.)
        if clock == nil { return try apply(json, buffer).unsafelyUnwrapped }
        return try applySettling(json, buffer).unsafelyUnwrapped
    }

    /// The state written into `buffer`, as `sendAndWriteState` writes it.
    public final func writeState(into buffer: UnsafeMutableRawBufferPointer) throws(FusionError) -> (length: Int, version: UInt64) {
        try apply(nil, buffer).unsafelyUnwrapped
    }

    /// The state's JSON and a NUL in memory from `malloc` that the caller frees, with its
    /// version; nil when only `stateJSON` can tell (see `Store.mallocState`).
    public final func mallocState() throws(FusionError) -> (memory: UnsafeMutableRawPointer, length: Int, version: UInt64)? {
        try readMalloced()
    }

    /// The state as compact UTF-8 JSON and the version it belongs to.
    public final func stateJSON() throws(FusionError) -> (bytes: [UInt8], version: UInt64) { try readState(nil) }

    /// What changed since `version`, as JSON Patch or, when too old, the whole state (see `Store.patch`).
    public final func statePatch(since version: UInt64) throws(FusionError) -> (bytes: [UInt8], version: UInt64) {
        try readState(version)
    }

    /// `apply` on an instance with a manual clock, which runs the effects the input set
    /// going until they settle: `JSONStore`'s.
    func applySettling(_ json: UnsafeRawBufferPointer?, _ buffer: UnsafeMutableRawBufferPointer?) throws(FusionError) -> (
        length: Int, version: UInt64
    )? {
        preconditionFailure("JSONStore overrides applySettling")
    }
}
