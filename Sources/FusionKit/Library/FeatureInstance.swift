#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running feature seen through JSON only: what the C ABI drives.
public protocol FeatureInstance: AnyObject, Sendable {
    /// The instance itself, as the class its round-trip calls are made on (`InstanceCore`).
    var core: InstanceCore { get }
    var featureName: String { get }
    /// Applies one input given as UTF-8 JSON. Bad input throws and changes nothing.
    func send(json: UnsafeRawBufferPointer) throws(FusionError)
    /// The state as compact UTF-8 JSON and the version it belongs to.
    func stateJSON() throws(FusionError) -> (bytes: [UInt8], version: UInt64)
    /// `send(json:)`, then the state right after that input written into `buffer` (see
    /// `Store.sendAndWrite`: the JSON and a NUL when they fit; the length either way).
    func sendAndWriteState(json: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) throws(FusionError) -> (
        length: Int, version: UInt64
    )
    /// The state's JSON and a NUL in memory from `malloc` that the caller frees, with its
    /// version; nil when only `stateJSON` can tell (see `Store.mallocState`).
    func mallocState() throws(FusionError) -> (memory: UnsafeMutableRawPointer, length: Int, version: UInt64)?
    /// The state written into `buffer`, as `sendAndWriteState` writes it.
    func writeState(into buffer: UnsafeMutableRawBufferPointer) throws(FusionError) -> (length: Int, version: UInt64)
    var version: UInt64 { get }
    /// What changed since `version`, as JSON Patch or, when too old, the whole state (see `Store.patch`).
    func statePatch(since version: UInt64) throws(FusionError) -> (bytes: [UInt8], version: UInt64)
    /// See `Store.subscribe`. Nil once closed; throws past `FusionLimit.subscribers`.
    func subscribe(_ callback: @escaping @Sendable (UInt64) -> Void) throws(FusionError) -> UInt64?
    func unsubscribe(_ id: UInt64) -> Bool
    /// Cancels effects and open host requests, drops subscribers.
    func close()
    /// Moves a manual clock and waits for the woken effects to settle.
    func advanceClock(by nanoseconds: UInt64) throws(FusionError)
    /// Runs `body`, a call that may set effects going (a host's answer, say), and on a
    /// manual clock runs the effects until each is parked again before returning.
    func answering(_ body: () throws(FusionError) -> Void) throws(FusionError)
    /// Effects not finished and host requests not answered (fk_pending).
    var pending: (effects: Int, requests: Int) { get }
    /// The instance written down so that another can go on from it (fk_checkpoint);
    /// throws `busy` while work it cannot start again is under way.
    func checkpoint() throws(FusionError) -> Checkpoint
    /// Stops every effect and starts again those the feature restarts (fk_restart_effects).
    func restartEffects() throws(FusionError)
    /// Nanoseconds the manual clock must move before a sleeping effect wakes; nil when
    /// none sleeps (fk_next_wake). Throws for an instance on the system clock.
    func nextWake() throws(FusionError) -> UInt64?
    /// Whether `close()` has begun: calls racing with it report an invalid handle.
    var isClosed: Bool { get }
    /// The instance's host requests: handler, polling, answers.
    var hostRequests: HostRequests { get }
    /// Keeps the last `limit` versions for `history` and `goto` (option `"history"`).
    func keepHistory(limit: Int)
    /// The versions kept and what made each (fk_history); nil when none are kept.
    var historyJSON: JSONValue? { get }
    /// Returns to a kept version's state, as a new version (fk_goto; see `Store.goto`).
    func goto(version: UInt64) throws(FusionError) -> UInt64
}

/// A `Store` behind the JSON boundary.
///
/// `send(json:)` and `stateJSON()` are the hot path. Calls through the `FeatureInstance`
/// protocol land in this class's generic code, compiled once in FusionKit for every `F`,
/// which looks up type metadata at run time on each call. So they run closures made
/// in the `@inlinable` initializer instead: it is compiled into the feature's own library
/// (from `FeatureDefinition.init`), where `F` is a concrete type and the closures, the
/// `Store` and the input table are specialized for it.
@usableFromInline
final class JSONStore<F: Feature>: InstanceCore, FeatureInstance, @unchecked Sendable {
    @usableFromInline let store: Store<F>
    /// The part of the environment the instance itself uses (the store holds the host's
    /// requests, `InstanceCore` the clock when it is manual): the random source a
    /// checkpoint records. Not the whole `Environment`, which is a hundred bytes and more
    /// per instance.
    @usableFromInline let random: RandomSource
    @inlinable
    init(store: Store<F>, reader: InputReader<F>, environment: Environment) {
        self.store = store
        random = environment.random
        super.init(
            clock: environment.clock as? ManualClock,
            apply: { (json, buffer) throws(FusionError) in
                guard let json else {
                    if let buffer { return try store.writeState(into: buffer) }
                    return nil
                }
                let input = try Self.input(json, reader: reader)
                if let buffer { return try store.sendAndWrite(input, json: json, into: buffer) }
                store.send(input, json: json)
                return nil
            },
            readState: { (since) throws(FusionError) in
                guard let since else { return try store.encodedState() }
                return try store.patch(since: since)
            },
            readMalloced: { () throws(FusionError) in try store.mallocState() })
    }

    /// The input `json` spells, or the error that says why it is not one.
    @inlinable
    static func input(_ json: UnsafeRawBufferPointer, reader: InputReader<F>) throws(FusionError) -> F.Input {
        if let input = reader.input(quoted: json) { return input }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(json, depthLimit: .library)
        } catch {
            throw FusionError(error, in: "the input")
        }
        if let input = reader.input(for: parsed) { return input }
        return try decodeInput(parsed, inputs: reader.catalog)
    }

    /// An input with fields: checked against the catalog (whose errors name the case and
    /// field), then read by the input's own `@JSONCoded` code.
    @usableFromInline
    static func decodeInput(_ parsed: JSONValue, inputs: InputCatalog) throws(FusionError) -> F.Input {
        try inputs.read(parsed, as: F.Input.self)
    }

    // The protocol's requirements; @usableFromInline because the class is.

    @usableFromInline var core: InstanceCore { self }

    /// With effects running on the manual clock, they settle before the call returns;
    /// without, an input is applied as on the system clock.
    @usableFromInline override func applySettling(_ json: UnsafeRawBufferPointer?, _ buffer: UnsafeMutableRawBufferPointer?)
        throws(FusionError) -> (length: Int, version: UInt64)?
    {
        guard store.effectExecutor != nil else { return try apply(json, buffer) }
        var written: (length: Int, version: UInt64)?
        try answering { () throws(FusionError) in written = try apply(json, buffer) }
        return written
    }

    @usableFromInline var hostRequests: HostRequests { store.host }

    @usableFromInline var featureName: String { F.name }

    @usableFromInline var version: UInt64 { store.version }
    @usableFromInline func subscribe(_ callback: @escaping @Sendable (UInt64) -> Void) throws(FusionError) -> UInt64? {
        try store.subscribe(limit: FusionLimit.subscribers.value, callback)
    }
    @usableFromInline func unsubscribe(_ id: UInt64) -> Bool { store.unsubscribe(id) }
    @usableFromInline func close() {
        // Requests first: the host hears of each cancellation before destroy returns.
        store.host.close()
        store.close()
        // The cancelled effects' last steps, so that none is left in the queue.
        store.effectExecutor?.drain()
    }

    @usableFromInline func keepHistory(limit: Int) { store.keepTimeline(limit: limit) }
    @usableFromInline var historyJSON: JSONValue? { store.historyJSON }
    @usableFromInline func goto(version: UInt64) throws(FusionError) -> UInt64 {
        var reached: UInt64 = 0
        try answering { () throws(FusionError) in reached = try store.goto(version: version) }
        return reached
    }
    @usableFromInline var isClosed: Bool { store.isClosed || store.host.isClosed }

    @usableFromInline var pending: (effects: Int, requests: Int) {
        (store.runningEffectCount, store.host.openCount)
    }

    @usableFromInline func checkpoint() throws(FusionError) -> Checkpoint {
        let clock = try manualClock(for: "a checkpoint")
        if let blocker = store.checkpointBlocker { throw FusionError(.busy, blocker) }
        let (bytes, version) = try store.encodedState()
        let state: JSONValue
        do {
            state = try JSONParser.parse(bytes)
        } catch {
            throw FusionError(.internalError, "the state of \"\(F.name)\" was written as JSON that does not read back: \(error)")
        }
        // At most the clock's end (2^63 - 1 ns): exact in a UInt64.
        let (seconds, attoseconds) = clock.now.components
        return Checkpoint(
            state: state, stateVersion: F.stateVersion, version: version,
            clock: UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000)),
            seed: random.seed, random: random.position)
    }

    @usableFromInline func restartEffects() throws(FusionError) {
        _ = try manualClock(for: "restarting its effects")
        try answering { () throws(FusionError) in try store.restartEffects() }
    }

    /// The instance's manual clock, or the error saying `what` needs one.
    func manualClock(for what: String) throws(FusionError) -> ManualClock {
        guard let clock else {
            throw FusionError(
                .invalidArgument,
                "this \"\(F.name)\" instance runs on the system clock; \(what) needs the manual clock (create it with {\"clock\":\"manual\"})"
            )
        }
        return clock
    }

    @usableFromInline func nextWake() throws(FusionError) -> UInt64? {
        guard let clock else {
            throw FusionError(
                .invalidArgument,
                "this \"\(F.name)\" instance runs on the system clock; only a manual clock (create it with {\"clock\":\"manual\"}) has a next wake to tell"
            )
        }
        guard let wait = clock.untilNextWake else { return nil }
        let (seconds, attoseconds) = wait.components
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }

    @usableFromInline func advanceClock(by nanoseconds: UInt64) throws(FusionError) {
        guard let clock else {
            throw FusionError(
                .invalidArgument,
                "this \"\(F.name)\" instance runs on the system clock; create it with {\"clock\":\"manual\"} to advance time")
        }
        // Effects started by earlier inputs first reach their wait, so that their
        // deadlines count from the time they were started at, not from after the move.
        // (An effect that cannot settle is said after the move, which is made anyway.)
        store.enterCall()
        defer { store.leaveCall() }
        let before = Result { () throws(FusionError) in try store.settle(waitingOn: clock, requests: store.host) }
        clock.advance(by: .nanoseconds(Int64(clamping: nanoseconds)))
        try store.settle(waitingOn: clock, requests: store.host)
        try before.get()
    }

    /// Runs `body` (a call that may set effects going: an input, a host's answer, a goto),
    /// then, on a manual clock, the effects until each is parked again (see
    /// `Store.settle`), the whole counted as one call. On the system clock, only `body`:
    /// effects run by themselves there.
    @usableFromInline func answering(_ body: () throws(FusionError) -> Void) throws(FusionError) {
        guard let clock else { return try body() }
        store.enterCall()
        defer { store.leaveCall() }
        try body()
        try store.settle(waitingOn: clock, requests: store.host)
    }
}

/// How a feature's inputs are read from JSON, made once per feature and shared by its
/// instances: the catalog the inputs are checked and normalized with, and the inputs
/// without fields, decoded once: `"increase"` then costs a few string comparisons instead
/// of a trip through `Decodable`. A list, not a dictionary: for the handful of cases a
/// feature has, comparing small strings (two machine words each) beats hashing. (One
/// object, so that an instance's closure captures one reference for both: the catalog
/// captured by value made each instance's closure context several times larger;
/// docs/performance.md has the bytes per instance.)
@usableFromInline
final class InputReader<F: Feature>: Sendable {
    @usableFromInline let catalog: InputCatalog
    @usableFromInline let names: [String]
    @usableFromInline let inputs: [F.Input]
    /// Each name as the input's whole text, `"increase"`, one after another: matched byte
    /// for byte before any parsing, the common case of a button press. One flat array and
    /// the offsets where each ends (name `i` is `quotedEnds[i - 1]..<quotedEnds[i]`), not
    /// an array of arrays: reading an inner array retains and releases it, on every input.
    @usableFromInline let quotedBytes: [UInt8]
    @usableFromInline let quotedEnds: [Int]

    @usableFromInline
    init(_ catalog: InputCatalog) {
        self.catalog = catalog
        var names: [String] = []
        var inputs: [F.Input] = []
        for item in catalog.cases where item.fields.isEmpty && item.value == nil {
            let wire: JSONValue = catalog.form == .bareString ? .string(item.name) : .object([JSONMember(item.name, .object([]))])
            if let input = try? JSONValueDecoder().decode(F.Input.self, from: wire) {
                names.append(item.name)
                inputs.append(input)
            }
        }
        self.names = names
        self.inputs = inputs
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for name in names {
            bytes += [UInt8(ascii: "\"")] + Array(name.utf8) + [UInt8(ascii: "\"")]
            ends.append(bytes.count)
        }
        quotedBytes = bytes
        quotedEnds = ends
    }

    /// The input whose text is exactly `"name"` for one of the names (no spaces, no
    /// escapes); nil otherwise, and the text is then parsed as usual (errors included).
    @inlinable
    func input(quoted json: UnsafeRawBufferPointer) -> F.Input? {
        guard json.count >= 2, json[0] == UInt8(ascii: "\""), json[json.count - 1] == UInt8(ascii: "\"") else { return nil }
        return quotedBytes.withUnsafeBytes { all in
            var start = 0
            for index in quotedEnds.indices {
                let end = quotedEnds[index]
                if end - start == json.count, memcmpEqual(UnsafeRawBufferPointer(rebasing: all[start..<end]), json) {
                    return inputs[index]
                }
                start = end
            }
            return nil
        }
    }

    /// The input `value` names, when it is a field-less case written `"name"` or `{"name":{}}`.
    @inlinable
    func input(for value: JSONValue) -> F.Input? {
        switch value {
        case .string(let name):
            return input(named: name)
        case .object(let members) where members.count == 1:
            guard case .object(let payload) = members[0].value, payload.isEmpty else { return nil }
            return input(named: members[0].key)
        default:
            return nil
        }
    }

    @inlinable
    func input(named name: String) -> F.Input? {
        for index in names.indices where names[index] == name { return inputs[index] }
        return nil
    }
}

/// Whether two byte ranges of equal length hold the same bytes.
@inlinable
func memcmpEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    guard let first = a.baseAddress, let second = b.baseAddress else { return true }  // both empty
    return memcmp(first, second, a.count) == 0
}
