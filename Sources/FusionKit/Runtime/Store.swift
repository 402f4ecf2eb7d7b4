#if canImport(Glibc)
import Glibc
#endif

/// Runs one instance of a feature: the single source of truth for its state.
///
/// Inputs are applied one at a time, in the order they arrive, from any thread. The
/// version goes up by one after every input or effect action that changed the state,
/// and only then; subscribers are told after each change (see `ChangeNotifier`).
public final class Store<F: Feature>: @unchecked Sendable {
    public let feature: F

    private let lock = ConditionLock()
    private var current: F.State
    private var currentVersion: UInt64 = 0
    private var closed = false

    private struct RunningEffect {
        let id: EffectID?
        var task: Task<Void, Never>?
        /// For a host request: its id with the host, once submitted.
        var request: UInt64?
    }
    private var effects: [UInt64: RunningEffect] = [:]
    private var nextEffectKey: UInt64 = 0
    /// Tasks cancelled by the actions being applied, cancelled for real once unlocked.
    private var tasksToCancel: [Task<Void, Never>] = []
    /// Host requests cancelled, and requests to submit, once unlocked (both call out
    /// to the host's handler, which must never run under the lock).
    private var requestsToCancel: [UInt64] = []
    private var requestsToSubmit: [(key: UInt64, submit: @Sendable (HostRequests, @escaping @Sendable (F.Action) -> Void) -> UInt64?)] = []
    /// Where this instance's host requests go.
    private let host: HostRequests

    let notifier = ChangeNotifier()

    /// Recent states by version, kept once someone asks for patches (nil until then),
    /// so that a patch can be computed from any of them to the current state.
    private var history: [(version: UInt64, state: F.State)]?
    /// How many versions back a patch can start.
    public static var patchHistoryLimit: Int { 16 }

    /// Encoded state and the version it was encoded at, so an unchanged state is
    /// never encoded twice.
    private var encoded: (version: UInt64, bytes: [UInt8])?

    public init(feature: F, state: F.State? = nil, host: HostRequests = HostRequests()) {
        self.feature = feature
        self.current = state ?? feature.initialState
        self.host = host
    }

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

    public var isClosed: Bool { lock.withLock { closed } }

    /// Applies an input: transform, then perform each action in order. Returns whether
    /// the state changed. Does nothing once the store is closed.
    @discardableResult
    public func send(_ input: F.Input) -> Bool {
        lock.lock()
        guard !closed else {
            lock.unlock()
            return false
        }
        let actions = feature.transform(input, state: current)
        let changed = applyLocked(actions)
        finishLocked()
        return changed
    }

    /// Applies an action fed back by a running effect, unless it has been cancelled.
    private func receive(_ action: F.Action, from key: UInt64) {
        lock.lock()
        guard !closed, effects[key] != nil else {
            lock.unlock()
            return
        }
        applyLocked([action])
        finishLocked()
    }

    /// Unlocks, then does what must not happen under the lock: cancelling tasks (their
    /// cancellation handlers may call out to the host) and telling subscribers.
    private func finishLocked() {
        let cancelled = tasksToCancel
        let cancelledRequests = requestsToCancel
        let submissions = requestsToSubmit
        if !cancelled.isEmpty { tasksToCancel.removeAll() }
        if !cancelledRequests.isEmpty { requestsToCancel.removeAll() }
        if !submissions.isEmpty { requestsToSubmit.removeAll() }
        lock.unlock()
        for task in cancelled { task.cancel() }
        for request in cancelledRequests { host.cancel(request) }
        for (key, submit) in submissions { submitRequest(key, submit) }
        notifier.deliver()
    }

    /// Hands a request to the host; its answer is applied on the answering thread.
    private func submitRequest(_ key: UInt64, _ submit: @Sendable (HostRequests, @escaping @Sendable (F.Action) -> Void) -> UInt64?) {
        guard lock.withLock({ effects[key] != nil }) else { return }  // cancelled before it was sent
        let id = submit(host) { [weak self] action in self?.receiveAnswer(action, for: key) }
        guard let id else { return }
        let stillWanted = lock.withLock { () -> Bool in
            guard effects[key] != nil else { return false }
            effects[key]?.request = id
            return true
        }
        if !stillWanted { host.cancel(id) }
    }

    /// Applies the action made from a host's answer, unless the request was cancelled.
    private func receiveAnswer(_ action: F.Action, for key: UInt64) {
        lock.lock()
        guard !closed, effects.removeValue(forKey: key) != nil else {
            lock.unlock()
            return
        }
        applyLocked([action])
        finishLocked()
    }

    /// Performs the actions and those they send; starts their effects. Lock held.
    @discardableResult
    private func applyLocked(_ actions: [F.Action]) -> Bool {
        let before = current
        var queue = actions
        var index = 0
        while index < queue.count {
            let effect = feature.perform(queue[index], state: &current)
            index += 1
            if effect.work.isEmpty { continue }
            var followUps: [F.Action] = []
            for work in effect.work {
                switch work {
                case .send(let action): followUps.append(action)
                case .run(let id, let cancelInFlight, let body):
                    if cancelInFlight, let id { cancelLocked(id) }
                    startLocked(id: id, body)
                case .cancel(let id): cancelLocked(id)
                case .request(let id, let submit, let builtin):
                    if host.currentMode == .builtin {
                        startLocked(id: id, builtin)
                    } else {
                        nextEffectKey += 1
                        effects[nextEffectKey] = RunningEffect(id: id)
                        requestsToSubmit.append((nextEffectKey, submit))
                    }
                }
            }
            // Follow-ups run right after the action that sent them, before the rest.
            if !followUps.isEmpty { queue.insert(contentsOf: followUps, at: index) }
        }
        guard current != before else { return false }
        currentVersion += 1
        if history != nil {
            history!.append((currentVersion, current))
            if history!.count > Self.patchHistoryLimit { history!.removeFirst() }
        }
        notifier.enqueue(currentVersion)
        return true
    }

    private func startLocked(id: EffectID?, _ body: @escaping @Sendable (Send<F.Action>) async -> Void) {
        nextEffectKey += 1
        let key = nextEffectKey
        effects[key] = RunningEffect(id: id)
        let send = Send<F.Action> { [weak self] action in self?.receive(action, from: key) }
        let task = Task.detached { [weak self] in
            await body(send)
            self?.finished(key)
        }
        effects[key]?.task = task
    }

    private func finished(_ key: UInt64) {
        lock.withLock { _ = effects.removeValue(forKey: key) }
    }

    private func cancelLocked(_ id: EffectID) {
        for (key, effect) in effects where effect.id == id {
            // Marked now, so that nothing it sends is applied from here on.
            effects.removeValue(forKey: key)
            if let task = effect.task { tasksToCancel.append(task) }
            if let request = effect.request { requestsToCancel.append(request) }
        }
    }

    /// How many effects are still running.
    public var runningEffectCount: Int { lock.withLock { effects.count } }

    /// Waits (up to `limit` of real time) until every running effect is parked: asleep
    /// on `clock` or waiting for a host request. What a manual clock's `advance`
    /// needs so that its caller sees the effects' changes when it returns.
    public func settle(waitingOn clock: ManualClock, requests: HostRequests, limit: Duration = .seconds(1)) {
        let start = ContinuousClock.now
        while runningEffectCount > clock.sleeperCount + requests.openCount {
            if ContinuousClock.now - start > limit { return }
            Self.pause()
        }
    }

    private static func pause() {
        var request = timespec(tv_sec: 0, tv_nsec: 50_000)
        nanosleep(&request, nil)
    }

    /// Calls `callback` with the new version after every change, until unsubscribed.
    /// Returns nil when the store is closed.
    public func subscribe(_ callback: @escaping @Sendable (UInt64) -> Void) -> UInt64? {
        notifier.subscribe(callback)
    }

    /// After this returns, the callback is not called again. False for an unknown id.
    @discardableResult
    public func unsubscribe(_ id: UInt64) -> Bool {
        notifier.unsubscribe(id)
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

    /// Cancels every running effect and drops every subscriber; later inputs are ignored.
    public func close() {
        let tasks = lock.withLock { () -> [Task<Void, Never>] in
            closed = true
            let tasks = effects.values.compactMap(\.task)
            effects.removeAll()
            return tasks
        }
        for task in tasks { task.cancel() }
        notifier.close()
    }

    /// What changed since `version`, as JSON:
    /// `{"from":V,"to":N,"patch":[…]}` (RFC 6902 operations that turn the state at V
    /// into the state at N), or `{"from":null,"to":N,"state":{…}}` when V is not one
    /// of the recent versions kept (a front end that missed too much gets it all).
    public func patch(since version: UInt64) throws(FusionError) -> (bytes: [UInt8], version: UInt64) {
        let (now, nowVersion, base) = lock.withLock { () -> (F.State, UInt64, F.State?) in
            if history == nil { history = [(currentVersion, current)] }
            let base = history?.last(where: { $0.version == version })?.state
            return (current, currentVersion, base)
        }
        var writer = JSONWriter()
        if let base {
            let operations: [JSONValue]
            do {
                operations = version == nowVersion ? [] : try StateDiff.patch(from: base, to: now)
            } catch {
                throw FusionError(.internalError, "the state of \"\(F.name)\" cannot be written as JSON: \(error)")
            }
            writer.write(["from": .integer(Int(truncatingIfNeeded: version)), "to": .integer(Int(truncatingIfNeeded: nowVersion)), "patch": .array(operations)])
            return (writer.bytes, nowVersion)
        }
        let (state, stateVersion) = try encodedState()
        writer.writeRaw("{\"from\":null,\"to\":")
        writer.writeInteger(Int(truncatingIfNeeded: stateVersion))
        writer.writeRaw(",\"state\":")
        var bytes = writer.bytes
        bytes.append(contentsOf: state)
        bytes.append(UInt8(ascii: "}"))
        return (bytes, stateVersion)
    }

    /// The state as compact JSON, with its version; encoded at most once per version.
    public func encodedState() throws(FusionError) -> (bytes: [UInt8], version: UInt64) {
        let (state, version, cached) = lock.withLock { (current, currentVersion, encoded) }
        if let cached, cached.version == version { return (cached.bytes, version) }
        let bytes: [UInt8]
        do {
            bytes = try JSONStreamEncoder().encode(state)
        } catch {
            throw FusionError(.internalError, "the state of \"\(F.name)\" cannot be written as JSON: \(error)")
        }
        lock.withLock {
            if (encoded?.version ?? 0) < version || encoded == nil { encoded = (version, bytes) }
        }
        return (bytes, version)
    }
}

/// A continuation resumed at most once, from whichever thread gets there first.
private final class WaitBox: @unchecked Sendable {
    private let lock = ConditionLock()
    private var continuation: CheckedContinuation<Void, Never>?
    var subscription: UInt64?

    func arm(_ continuation: CheckedContinuation<Void, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    func fire() {
        let pending = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            defer { continuation = nil }
            return continuation
        }
        pending?.resume()
    }
}
