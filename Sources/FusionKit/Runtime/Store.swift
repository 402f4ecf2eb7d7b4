/// Runs one instance of a feature: the single source of truth for its state.
///
/// Inputs are applied one at a time, in the order they arrive, from any thread. The
/// version goes up by one after every input or effect action that changed the state,
/// and only then; subscribers are told after each change (see `ChangeNotifier`).
///
/// This file is the store's face: its state, and the public API a host or a test calls.
/// The engine (applying actions, running and cancelling effects, encoding the state
/// under the lock) is in Store+Engine.swift.
///
/// The hot path (`send`, `encodedState`) is `@inlinable`: a feature's library compiles
/// it for its own `Store<Feature>`, with concrete types, instead of running generic code
/// that looks up type metadata on every input. Mutable state is only touched with
/// `lock` held, which is why its run-time exclusivity checks are turned off.
public final class Store<F: Feature>: @unchecked Sendable {
    /// The feature whose logic this store runs.
    public let feature: F

    @usableFromInline let lock = ConditionLock()

    @usableFromInline @exclusivity(unchecked) var current: F.State

    @usableFromInline @exclusivity(unchecked) var currentVersion: UInt64 = 0

    @usableFromInline @exclusivity(unchecked) var closed = false

    @usableFromInline @exclusivity(unchecked) var effects: [UInt64: RunningEffect] = [:]

    @usableFromInline @exclusivity(unchecked) var nextEffectKey: UInt64 = 0

    /// Tasks cancelled by the actions being applied, cancelled for real once unlocked.
    @usableFromInline @exclusivity(unchecked) var tasksToCancel: [Task<Void, Never>] = []

    /// Host requests cancelled, and requests to submit, once unlocked (both call out
    /// to the host's handler, which must never run under the lock).
    @usableFromInline @exclusivity(unchecked) var requestsToCancel: [UInt64] = []

    @usableFromInline @exclusivity(unchecked) var requestsToSubmit: [PendingRequest] = []

    /// Where this instance's host requests go.
    @usableFromInline let host: HostRequests

    /// Made by the first subscriber (most instances never have one: this saves a
    /// notifier and its lock per instance); set once, with `lock` held.
    @usableFromInline @exclusivity(unchecked) var madeNotifier: ChangeNotifier?

    /// The notifier, once there has been a subscriber: read only with `lock` held, or
    /// after seeing under it that there is one.
    @usableFromInline var notifier: ChangeNotifier { madeNotifier.unsafelyUnwrapped }

    /// How many subscribers there are, mirrored under `lock`: with none, a change is not
    /// handed to the notifier at all (which takes its own lock twice).
    @usableFromInline @exclusivity(unchecked) var subscriberCount = 0

    /// Whether the actions just applied queued a change for subscribers.
    @usableFromInline @exclusivity(unchecked) var changeQueued = false

    /// Recent states by version, kept once someone asks for patches (nil until then),
    /// so that a patch can be computed from any of them to the current state.
    @usableFromInline @exclusivity(unchecked) var history: [(version: UInt64, state: F.State)]?

    /// Kept states for time travel (`keepTimeline`, `goto`); nil, and free, when off.
    @usableFromInline @exclusivity(unchecked) var timeline: Timeline<F.State>?

    /// States up to this many bytes of JSON are encoded under the store's lock when
    /// their plan allows (see `encodeByPlanLocked`).
    @usableFromInline static var smallState: Int { 16 * 1024 }

    /// How many versions back a patch can start.
    public static var patchHistoryLimit: Int { 16 }

    /// Encoded state and the version it was encoded at, so an unchanged state is
    /// never encoded twice. (States written straight into a caller's buffer are not kept.)
    @usableFromInline @exclusivity(unchecked) var encoded: (version: UInt64, bytes: [UInt8])?

    /// How many bytes of JSON the state took the last time it was written; Int.max
    /// before the first time, which builds the state's plan (see `encodeByPlanLocked`).
    @usableFromInline @exclusivity(unchecked) var lastEncodedCount = Int.max

    /// How the state type is written (see `EncodingPlan`), kept once known.
    @usableFromInline @exclusivity(unchecked) var statePlan: EncodingPlan?

    /// The encoder's scratch (its writer) from the last encode, taken by one encode at a
    /// time (nil while taken).
    @usableFromInline @exclusivity(unchecked) var encodeScratch: AnyObject?

    /// Where effects run when the store settles them itself (an instance on a manual
    /// clock, see `settle`); nil: each effect is a detached task on the global pool.
    public let effectExecutor: EffectExecutor?

    /// Calls on this store between `enterCall` and `leaveCall` (an instance on a manual
    /// clock counts its calls): while another is under way, an effect not parked may be
    /// that call's to settle, so `settle` does not call it unsettled.
    @usableFromInline @exclusivity(unchecked) var activeCalls = 0

    /// A call that may set effects going begins (see `activeCalls`).
    public func enterCall() { lock.withLock { activeCalls += 1 } }

    /// The call begun with `enterCall` ends.
    public func leaveCall() { lock.withLock { activeCalls -= 1 } }

    /// A store running `feature`, from `state` (the feature's initial state when nil);
    /// `host` receives the work it asks of the host. With `effectExecutor`, effects run
    /// only when `settle` drains it.
    public init(
        feature: F, state: F.State? = nil, version: UInt64 = 0, host: HostRequests = HostRequests(), effectExecutor: EffectExecutor? = nil
    ) {
        self.feature = feature
        self.current = state ?? feature.initialState
        self.currentVersion = version
        self.host = host
        self.effectExecutor = effectExecutor
    }

    /// A store of a feature made from `environment` (the live one by default): how tests
    /// start, e.g. `Store<Counter>()` or `Store<WiFiSettings>(environment: Environment(clock: ManualClock()))`.
    public convenience init(environment: Environment = .live, state: F.State? = nil) {
        self.init(feature: F(environment: environment), state: state, host: environment.host)
    }

    deinit {
        for effect in effects.values { effect.task?.cancel() }
    }

    /// A copy of the current state.
    public var state: F.State { lock.withLock { current } }

    /// How many changes the state has been through.
    public var version: UInt64 { lock.withLock { currentVersion } }

    /// The state and its version, read together.
    public var snapshot: (state: F.State, version: UInt64) { lock.withLock { (current, currentVersion) } }

    /// Whether `close()` ran: a closed store ignores inputs and has cancelled its effects.
    public var isClosed: Bool { lock.withLock { closed } }

    /// Applies an input: transform, then perform each action in order. Returns whether
    /// the state changed. Does nothing once the store is closed.
    @discardableResult @inlinable
    public func send(_ input: F.Input) -> Bool {
        send(input, json: nil)
    }

    /// Applies an input and writes the state right after it, as JSON, into `buffer`, with
    /// its version: `send` then `writeState`, except that another thread's input cannot
    /// come in between. Once closed, the input is ignored and the current state written.
    /// The round trip allocates nothing when the state's plan allows (see `writeLocked`).
    /// The JSON and a NUL after it are written when both fit (`length < buffer.count`);
    /// otherwise the buffer is left as it was and `length` says how many bytes the JSON
    /// needs (one more for the NUL).
    @inlinable
    public func sendAndWrite(_ input: F.Input, json: UnsafeRawBufferPointer? = nil, into buffer: UnsafeMutableRawBufferPointer)
        throws(FusionError) -> (length: Int, version: UInt64)
    {
        lock.lock()
        if !closed {
            if let timeline { timeline.nextCause = .input(json.map { Array($0) }) }
            applyLocked(feature.transform(input, state: current))
        }
        return try writeLocked(into: buffer)
    }

    /// The current state's JSON written into `buffer`, as `sendAndWrite` writes it.
    @inlinable
    public func writeState(into buffer: UnsafeMutableRawBufferPointer) throws(FusionError) -> (length: Int, version: UInt64) {
        lock.lock()
        return try writeLocked(into: buffer)
    }

    /// How many effects are still running.
    public var runningEffectCount: Int { lock.withLock { effects.count } }

    /// Runs the effects until every one is parked: asleep on `clock`, waiting for a host
    /// request, or finished. What a manual clock's `advance` needs so that its caller
    /// sees the effects' changes when it returns. With an `effectExecutor` this is
    /// exact: the effects run here, on this thread, and one that waits on anything else
    /// (the system clock, another thread) is `FusionStatus.unsettled`, naming the
    /// feature and its effects. A store made without one runs its effects on the global
    /// pool, which nothing here can settle exactly: `invalidArgument` says so (such a
    /// store's tests wait with `ManualClock.waitForSleepers` and `waitUntil(version:)`).
    public func settle(waitingOn clock: ManualClock, requests: HostRequests) throws(FusionError) {
        guard let effectExecutor else {
            throw FusionError(
                .invalidArgument,
                "this \"\(F.name)\" store runs its effects on the global pool; make it with an effectExecutor to settle them")
        }
        // Every effect has run until it waits (unless another call's drain is running one:
        // that call settles it). Those waiting on this clock or on a host answer are
        // parked; any other waits on something no drain can bring back.
        guard effectExecutor.drain() else { return }
        let (waiting, unnamed) = lock.withLock { () -> ([String], Int) in
            let running = effects.values
            // Another call under way may be moving an effect between its waits. A store
            // being closed (fk_destroy: its host requests first, then its effects) has
            // effects whose requests were cancelled and which are on their way out: a call
            // racing the destroy completes, it does not call them unsettled.
            guard !closed, !requests.isClosed, activeCalls <= 1, running.count > clock.sleeperCount + requests.openCount else {
                return ([], 0)
            }
            let candidates = running.filter { $0.request == nil }
            return (candidates.compactMap { $0.id.map { "\"\($0.rawValue)\"" } }, candidates.filter { $0.id == nil }.count)
        }
        guard !waiting.isEmpty || unnamed > 0 else { return }
        var named = waiting
        if unnamed > 0 { named.append("\(unnamed) without an id") }
        throw FusionError(
            .unsettled,
            "an effect of \"\(F.name)\" waits on something other than its manual clock and the host's answers, so it cannot settle (effects not asleep on the clock or waiting for the host, one of which is it: \(named.joined(separator: ", ")))"
        )
    }

    /// Calls `callback` with the new version after every change, until unsubscribed.
    /// Returns nil when the store is closed.
    public func subscribe(_ callback: @escaping @Sendable (UInt64) -> Void) -> UInt64? {
        (try? subscribe(limit: .max, callback)) ?? nil
    }

    /// `subscribe(_:)`, refused once `limit` subscribers are there (what the C ABI
    /// calls, with `FusionLimit.subscribers`). Nil when the store is closed.
    public func subscribe(limit: Int, _ callback: @escaping @Sendable (UInt64) -> Void) throws(FusionError) -> UInt64? {
        // Counted first: a change made once this returns must reach the new subscriber.
        let notifier = lock.withLock { () -> ChangeNotifier? in
            guard !closed else { return nil }
            subscriberCount += 1
            if madeNotifier == nil { madeNotifier = ChangeNotifier() }
            return madeNotifier
        }
        guard let notifier else { return nil }
        switch notifier.subscribe(callback, limit: limit) {
        case .subscribed(let id):
            return id
        case .closed:
            lock.withLock { subscriberCount -= 1 }
            return nil
        case .full(let count):
            lock.withLock { subscriberCount -= 1 }
            throw FusionLimit.subscribers.exceeded("the instance has \(count) subscribers")
        }
    }

    /// After this returns, the callback is not called again. False for an unknown id.
    @discardableResult
    public func unsubscribe(_ id: UInt64) -> Bool {
        guard let notifier = lock.withLock({ madeNotifier }) else { return false }
        let removed = notifier.unsubscribe(id)
        if removed { lock.withLock { subscriberCount -= 1 } }
        return removed
    }

    /// Returns once the version has reached `version`: how a test waits for the actions
    /// an effect feeds back, without sleeping.
    public func waitUntil(version: UInt64) async {
        let box = WaitBox()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            box.arm(continuation)
            let id = subscribe { reached in if reached >= version { box.fire() } }
            if self.version >= version || id == nil { box.fire() }
            box.subscription = id
        }
        if let id = box.subscription { unsubscribe(id) }
    }

    // MARK: Time travel

    /// Keeps the last `limit` versions' states from now on, for `history` and `goto`.
    /// Call before the store is shared; a second call starts a new timeline.
    public func keepTimeline(limit: Int) {
        lock.withLock { timeline = limit > 0 ? Timeline(limit: limit, version: currentVersion, state: current) : nil }
    }

    /// The versions kept, each with what made it, as JSON (see `fk_history`); nil when
    /// no timeline is kept.
    public var historyJSON: JSONValue? {
        lock.withLock { timeline?.json(current: currentVersion) }
    }

    /// Returns to the state of a kept `version`, as a new version: every running effect
    /// and open host request is cancelled (they belong to the abandoned future), the
    /// versions after it are forgotten, and the next input branches from there. Going
    /// to the current version changes nothing. Returns the version reached.
    @discardableResult
    public func goto(version: UInt64) throws(FusionError) -> UInt64 {
        lock.lock()
        guard !closed else {
            lock.unlock()
            throw FusionError(.invalidHandle, "the instance is closed")
        }
        guard let timeline else {
            lock.unlock()
            throw FusionError(
                .invalidArgument,
                "this \"\(F.name)\" instance keeps no history; create it with the option {\"history\": N} to keep N versions")
        }
        let restored: F.State?
        do throws(FusionError) {
            restored = try timeline.stateToRestore(version, current: currentVersion)
        } catch {
            lock.unlock()
            throw error
        }
        guard let state = restored else {
            lock.unlock()
            return version
        }
        for effect in effects.values {
            if let task = effect.task { tasksToCancel.append(task) }
            if let request = effect.request { requestsToCancel.append(request) }
        }
        effects.removeAll()
        timeline.dropFrom(version)
        timeline.nextCause = .restored(version)
        current = state
        recordChangeLocked()
        let reached = currentVersion
        finishLocked()
        return reached
    }

    /// Cancels every running effect and drops every subscriber; later inputs are ignored.
    public func close() {
        let tasks = lock.withLock { () -> [Task<Void, Never>] in
            closed = true
            let tasks = effects.values.compactMap(\.task)
            effects.removeAll()
            return tasks
        }
        for task in tasks { task.cancel() }
        lock.withLock { madeNotifier }?.close()
    }

    /// What changed since `version`, as JSON:
    /// `{"from":V,"to":N,"patch":[…]}` (RFC 6902 operations that turn the state at V
    /// into the state at N), or `{"from":null,"to":N,"state":{…}}` when V is not one
    /// of the recent versions kept (a front end that missed too much gets it all), or when
    /// the whole state costs less than the patch (`StatePatchCost`). Inlinable: compiled with the feature's concrete state (`JSONStore`), the kept
    /// versions are searched and copied without generic metadata lookups on every call.
    @inlinable
    public func patch(since version: UInt64) throws(FusionError) -> (bytes: [UInt8], version: UInt64) {
        do {
            // The base state and its version go to StatePatch.json as separate arguments: it
            // runs unspecialized, where an optional tuple holding the state would be a type
            // looked up (and the state copied out of it) at every call.
            lock.lock()
            if history == nil { history = [(currentVersion, current)] }
            guard let index = history?.lastIndex(where: { $0.version == version }) else {
                lock.unlock()
                return try StatePatch.whole { try encodedState() }
            }
            let base = history.unsafelyUnwrapped[index].state
            let now = current
            let nowVersion = currentVersion
            let wholeBytes = lastEncodedCount
            lock.unlock()
            return try StatePatch.json(from: base, version: version, to: now, version: nowVersion, wholeBytes: wholeBytes) {
                try encodedState()
            }
        } catch let error as FusionError {
            throw error
        } catch {
            throw FusionError(.internalError, "the state of \"\(F.name)\" cannot be written as JSON: \(error)")
        }
    }

    /// The state as compact JSON, with its version; encoded at most once per version.
    @inlinable
    public func encodedState() throws(FusionError) -> (bytes: [UInt8], version: UInt64) {
        lock.lock()
        let version = currentVersion
        if let cached = encoded, cached.version == version {
            lock.unlock()
            return (cached.bytes, version)
        }
        if let bytes = encodeByPlanLocked(version: version) {
            lock.unlock()
            return (bytes, version)
        }
        let state = current
        let plan = statePlan
        let scratch = takeScratchLocked()
        lock.unlock()
        return (try encode(state, version: version, plan: plan, scratch: scratch), version)
    }
}
