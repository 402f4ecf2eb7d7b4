/// An instance of a feature in a `HostedLibrary`: send it inputs as JSON, read its
/// state, hear when it changes, answer the work it asks for.
///
/// It may be used from any thread. It destroys its instance when it goes away, unless
/// `destroy()` did so before. A closure given to `subscribe` or `setRequestHandler` is
/// kept until it is removed or the instance is destroyed: one that captures the
/// instance keeps it alive until then.
public final class HostedInstance: Sendable {
    public let library: HostedLibrary
    public let feature: String
    /// The library's handle (fk_instance).
    public let handle: UInt64

    private struct Callbacks {
        var subscriptions: [UInt64: Unmanaged<ChangeBox>] = [:]
        var requestHandler: Unmanaged<RequestBox>?
        var destroyed = false
    }

    private let callbacks = LockedValue(Callbacks())

    init(library: HostedLibrary, feature: String, handle: UInt64) {
        self.library = library
        self.feature = feature
        self.handle = handle
    }

    deinit {
        let destroyed = callbacks.withLock { $0.destroyed }
        if !destroyed { try? library.calls.destroy(handle) }
        releaseCallbacks()
    }

    private var calls: any LibraryBackend { library.calls }

    /// fk_destroy: cancels the instance's effects and open requests; no callback of it
    /// runs after this returns. Throws FK_ERR_INVALID_HANDLE if it was destroyed already.
    public func destroy() throws(FusionHostError) {
        try calls.destroy(handle)
        callbacks.withLock { $0.destroyed = true }
        // The library calls none of them any more, so their boxes can go.
        releaseCallbacks()
    }

    private func releaseCallbacks() {
        let (subscriptions, handler) = callbacks.withLock { state in
            defer { state.subscriptions = [:]; state.requestHandler = nil }
            return (Array(state.subscriptions.values), state.requestHandler)
        }
        for subscription in subscriptions { subscription.release() }
        handler?.release()
    }

    /// fk_send: applies an input, given as JSON ("increase", {"answerChanged":{"text":"hi"}}).
    /// A refused input changes nothing and throws with the library's explanation.
    public func send(_ inputJSON: String) throws(FusionHostError) {
        try calls.send(handle, inputJSON)
    }

    public func send(_ input: JSONValue) throws(FusionHostError) {
        try send(input.jsonText)
    }

    /// fk_state: the state as JSON and the version it belongs to.
    public func state() throws(FusionHostError) -> InstanceState {
        let (json, version) = try calls.state(handle)
        return InstanceState(json: json, version: version)
    }

    /// fk_state_patch: what changed since `version`, as `{"from","to","patch"}` (RFC 6902)
    /// or, when that version is no longer kept, `{"from":null,"to","state"}`.
    /// A library that predates fk_state_patch gives the whole state, in the same form.
    public func statePatch(since version: UInt64) throws(FusionHostError) -> InstanceState {
        guard library.exports("fk_state_patch") else {
            let whole = try state()
            return InstanceState(json: "{\"from\":null,\"to\":\(whole.version),\"state\":\(whole.json)}", version: whole.version)
        }
        let (json, to) = try calls.statePatch(handle, since: version)
        return InstanceState(json: json, version: to)
    }

    /// fk_version: 0 when created, one more for each change.
    public func version() throws(FusionHostError) -> UInt64 {
        try calls.version(handle)
    }

    /// fk_subscribe: `onChange` is called with the new version after every change, on
    /// the thread that caused it (the one sending the input, or an effect's thread).
    /// It may call back into the instance. Returns the subscription's id.
    @discardableResult
    public func subscribe(_ onChange: @escaping @Sendable (UInt64) -> Void) throws(FusionHostError) -> UInt64 {
        let box = Unmanaged.passRetained(ChangeBox(onChange))
        let id: UInt64
        do {
            id = try calls.subscribe(handle, ChangeBox.function, UnsafeRawPointer(box.toOpaque()))
        } catch {
            box.release()
            throw error
        }
        callbacks.withLock { $0.subscriptions[id] = box }
        return id
    }

    /// fk_unsubscribe: once this returns the closure is not called again.
    public func unsubscribe(_ subscription: UInt64) throws(FusionHostError) {
        try calls.unsubscribe(handle, subscription)
        let box = callbacks.withLock { $0.subscriptions.removeValue(forKey: subscription) }
        box?.release()
    }

    /// fk_advance_clock: moves a manual clock (option "clock":"manual") forward and
    /// returns once the effects it woke have settled.
    public func advanceClock(byNanoseconds nanoseconds: UInt64) throws(FusionHostError) {
        try calls.advanceClock(handle, nanoseconds: nanoseconds)
    }

    /// As `advanceClock(byNanoseconds:)`, with a `Duration`; a negative one moves nothing.
    public func advanceClock(by duration: Duration) throws(FusionHostError) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return try advanceClock(byNanoseconds: 0) }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let nanoseconds = overflow ? UInt64.max : whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000)).partialValue
        try advanceClock(byNanoseconds: nanoseconds)
    }

    /// fk_next_wake: nanoseconds the manual clock must move before a sleeping effect
    /// wakes; nil when none sleeps.
    public func nextWake() throws(FusionHostError) -> UInt64? {
        let nanoseconds = try calls.nextWake(handle)
        return nanoseconds == UInt64.max ? nil : nanoseconds
    }

    /// Whether the library has fk_next_wake (libraries before it lack it).
    public var canTellNextWake: Bool { library.summary.optionalFunctions?.contains(EntryPoint.nextWake.symbol) ?? false }

    /// fk_pending: effects not finished (running, or waiting on the clock or a host
    /// request) and host requests not answered.
    public func pending() throws(FusionHostError) -> (effects: UInt64, requests: UInt64) {
        try calls.pending(handle)
    }

    /// fk_set_request_handler: `handler` is told about the requests and cancellations
    /// of this instance and selects "host" requests; nil removes it, and requests then
    /// wait for `pollRequest()`. The previous handler is not called after this returns.
    public func setRequestHandler(_ handler: (@Sendable (HostRequestEvent) -> Void)?) throws(FusionHostError) {
        let box = handler.map { Unmanaged.passRetained(RequestBox($0)) }
        do {
            try calls.setRequestHandler(
                handle, box == nil ? nil : RequestBox.function, box.map { UnsafeRawPointer($0.toOpaque()) })
        } catch {
            box?.release()
            throw error
        }
        let previous = callbacks.withLock { state in
            defer { state.requestHandler = box }
            return state.requestHandler
        }
        previous?.release()
    }

    /// fk_poll_request: the next request or cancellation of an instance without a
    /// handler; nil when there is none.
    public func pollRequest() throws(FusionHostError) -> HostRequestEvent? {
        try calls.pollRequest(handle).map(HostRequestEvent.init(json:))
    }

    /// fk_respond: answers an open request with its result, as JSON.
    public func respond(to requestID: UInt64, resultJSON: String) throws(FusionHostError) {
        try calls.respond(handle, requestID: requestID, resultJSON: resultJSON)
    }

    public func respond(to requestID: UInt64, result: JSONValue) throws(FusionHostError) {
        try respond(to: requestID, resultJSON: result.jsonText)
    }

    /// fk_checkpoint: the instance written down, to create another from with the option
    /// "checkpoint". Throws status `busy` while work that cannot restart is under way.
    public func checkpoint() throws(FusionHostError) -> JSONValue {
        let json = try calls.checkpoint(handle)
        guard let value = try? JSONParser.parse(json), value.members != nil else {
            throw .failed(
                CallFailure(
                    function: "fk_checkpoint", status: .internalError, statusName: "FK_ERR_INTERNAL",
                    message: "fk_checkpoint returned what is not an object: \(json.prefix(200))"))
        }
        return value
    }

    /// fk_restart_effects: stops every effect and starts again those the feature restarts.
    public func restartEffects() throws(FusionHostError) {
        try calls.restartEffects(handle)
    }

    /// Whether the library has checkpoints (fk_checkpoint and fk_restart_effects).
    public var canCheckpoint: Bool {
        let listed = library.summary.optionalFunctions ?? []
        return listed.contains(EntryPoint.checkpoint.symbol) && listed.contains(EntryPoint.restartEffects.symbol)
    }

    /// fk_history: the versions the instance keeps (option "history"), oldest first,
    /// each with what made it.
    public func history() throws(FusionHostError) -> InstanceHistory {
        let json = try calls.history(handle)
        guard let value = try? JSONParser.parse(json), let history = InstanceHistory(json: value) else {
            throw .failed(
                CallFailure(
                    function: "fk_history", status: .internalError, statusName: "FK_ERR_INTERNAL",
                    message: "fk_history returned what is not a history: \(json.prefix(200))"))
        }
        return history
    }

    /// fk_goto: returns to the state of a kept version, as a new version; effects and
    /// open requests are cancelled. Returns the version reached.
    @discardableResult
    public func goto(version: UInt64) throws(FusionHostError) -> UInt64 {
        try calls.goto(handle, version: version)
    }

    /// A sandboxed plugin's instance that failed on a fault (FK_ERR_PLUGIN_TRAPPED,
    /// FK_ERR_PLUGIN_LIMIT) goes on from its last good state, at the same version, without
    /// the call that faulted. Throws `missingEntryPoint` for a native library.
    public func recover() throws(FusionHostError) {
        try calls.recover(handle)
    }

    /// Whether a failure was a sandboxed plugin's fault: the instance failed, and
    /// `recover()` can make it go on.
    public static func isPluginFault(_ error: FusionHostError) -> Bool {
        error.status == .pluginTrapped || error.status == .pluginLimit
    }

    /// fk_fail_request: answers an open request with an error message.
    public func failRequest(_ requestID: UInt64, message: String) throws(FusionHostError) {
        try calls.failRequest(handle, requestID: requestID, message: message)
    }
}

/// A state read from an instance, with the version it belongs to.
public struct InstanceState: Sendable, Equatable {
    /// The state as the library wrote it: a JSON object.
    public let json: String
    public let version: UInt64

    public init(json: String, version: UInt64) {
        self.json = json
        self.version = version
    }

    /// The state parsed, members in the library's order.
    public func value() throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(json)
    }
}
