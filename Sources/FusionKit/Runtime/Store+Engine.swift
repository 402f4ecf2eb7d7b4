/// The store's engine: how an input or an effect's action becomes a new state and
/// version (`applyLocked`), how effects and host requests are started, fed back and
/// cancelled, and how the state is encoded and written under the lock. Methods named
/// `…Locked` run with `lock` held; `finishLocked` unlocks and then does what must not
/// happen under the lock.
extension Store {
    @usableFromInline struct RunningEffect {
        @usableFromInline let id: EffectID?
        @usableFromInline var task: Task<Void, Never>?
        /// For a host request: its id with the host, once submitted.
        @usableFromInline var request: UInt64?

        @usableFromInline init(id: EffectID?) { self.id = id }
    }

    @usableFromInline struct PendingRequest {
        @usableFromInline let key: UInt64
        @usableFromInline let submit: @Sendable (HostRequests, @escaping @Sendable (F.Action) -> Void) -> UInt64?

        @usableFromInline init(key: UInt64, submit: @escaping @Sendable (HostRequests, @escaping @Sendable (F.Action) -> Void) -> UInt64?) {
            self.key = key
            self.submit = submit
        }
    }

    /// `send`, with the input's JSON for the timeline (`history`) when one is kept.
    @discardableResult @inlinable
    func send(_ input: F.Input, json: UnsafeRawBufferPointer?) -> Bool {
        lock.lock()
        guard !closed else {
            lock.unlock()
            return false
        }
        if let timeline { timeline.nextCause = .input(json.map { Array($0) }) }
        let actions = feature.transform(input, state: current)
        let changed = applyLocked(actions)
        finishLocked()
        return changed
    }

    /// Encodes the current state while the lock is held, when its plan runs no code but
    /// its own (no feature code that could call back in under the lock) and the last
    /// state written was small (other threads wait for the lock meanwhile), and keeps the
    /// bytes: one lock acquisition less. Nil when that cannot be done. Lock held.
    @inlinable
    func encodeByPlanLocked(version: UInt64) -> [UInt8]? {
        guard lastEncodedCount <= Self.smallState,
            let plan = statePlan,
            let (bytes, scratch) = JSONStreamEncoder().encodeByPlanAlone(current, plan: plan, scratch: encodeScratch)
        else { return nil }
        encodeScratch = scratch
        encoded = (version, bytes)
        lastEncodedCount = bytes.count
        return bytes
    }

    /// Writes the current state into `buffer` and unlocks: from the kept bytes when they
    /// are this version's, by the plan under the lock when `encodeByPlanLocked` could
    /// (through the encoder's own scratch, so no array is made, kept or freed), else
    /// encoded as `encodedState` does. Lock held on entry, not on return.
    @inlinable
    func writeLocked(into buffer: UnsafeMutableRawBufferPointer) throws(FusionError) -> (length: Int, version: UInt64) {
        let version = currentVersion
        if encoded?.version == version, let bytes = encoded?.bytes {
            finishLocked()
            return (Self.copy(bytes, into: buffer), version)
        }
        if lastEncodedCount <= Self.smallState,
            let length = withUnsafePointer(
                to: &current,
                { state in
                    JSONStreamEncoder().writeByPlanAlone(UnsafeRawPointer(state), plan: &statePlan, scratch: &encodeScratch, into: buffer)
                })
        {
            lastEncodedCount = length
            // Older bytes would never be read again (the version has moved on): let them go.
            if encoded != nil { encoded = nil }
            finishLocked()
            return (length, version)
        }
        let state = current
        let plan = statePlan
        let scratch = takeScratchLocked()
        finishLocked()
        return (Self.copy(try encode(state, version: version, plan: plan, scratch: scratch), into: buffer), version)
    }

    /// Copies `bytes` and a NUL into `buffer` when they fit; returns the length either way.
    @inlinable
    static func copy(_ bytes: [UInt8], into buffer: UnsafeMutableRawBufferPointer) -> Int {
        bytes.withUnsafeBytes { copyTerminated($0, into: buffer) }
    }

    /// Applies an action fed back by a running effect, unless it has been cancelled.
    func receive(_ action: F.Action, from key: UInt64) {
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
    @inlinable
    func finishLocked() {
        // Another thread's queued changes are delivered by that thread (see ChangeNotifier).
        let deliver = changeQueued
        changeQueued = false
        guard tasksToCancel.isEmpty, requestsToCancel.isEmpty, requestsToSubmit.isEmpty else {
            finishEffectsAndUnlock()
            if deliver { notifier.deliver() }
            return
        }
        lock.unlock()
        if deliver { notifier.deliver() }
    }

    /// `finishLocked` when the actions applied cancelled or asked for work.
    @usableFromInline
    func finishEffectsAndUnlock() {
        let cancelled = tasksToCancel
        let cancelledRequests = requestsToCancel
        let submissions = requestsToSubmit
        tasksToCancel.removeAll()
        requestsToCancel.removeAll()
        requestsToSubmit.removeAll()
        lock.unlock()
        for task in cancelled { task.cancel() }
        for request in cancelledRequests { host.cancel(request) }
        for pending in submissions { submitRequest(pending.key, pending.submit) }
    }

    /// Hands a request to the host; its answer is applied on the answering thread.
    func submitRequest(_ key: UInt64, _ submit: @Sendable (HostRequests, @escaping @Sendable (F.Action) -> Void) -> UInt64?) {
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
    func receiveAnswer(_ action: F.Action, for key: UInt64) {
        lock.lock()
        guard !closed, effects.removeValue(forKey: key) != nil else {
            lock.unlock()
            return
        }
        timeline?.nextCause = .response
        applyLocked([action])
        finishLocked()
    }

    /// Performs the actions and those they send; starts their effects. Lock held.
    @discardableResult @inlinable
    func applyLocked(_ actions: [F.Action]) -> Bool {
        let before = current
        feature.performInOrder(actions, on: &current) { startLocked($0) }
        guard current != before else {
            timeline?.nextCause = .effect
            return false
        }
        recordChangeLocked()
        return true
    }

    /// What every change of `current` is followed by: a new version, kept for time travel
    /// and patches, and queued for subscribers. Lock held.
    @inlinable
    func recordChangeLocked() {
        currentVersion += 1
        timeline?.record(version: currentVersion, state: current)
        if history != nil {
            history!.append((currentVersion, current))
            if history!.count > Self.patchHistoryLimit { history!.removeFirst() }
        }
        if subscriberCount > 0 {
            notifier.enqueue(currentVersion)
            changeQueued = true
        }
    }

    /// Starts an effect's work; returns the actions it sends at once. Lock held.
    @usableFromInline
    func startLocked(_ effect: Effect<F.Action>) -> [F.Action] {
        var followUps: [F.Action] = []
        for work in effect.work {
            switch work {
            case .send(let action): followUps.append(action)
            case .run(let id, let cancelInFlight, let body):
                if cancelInFlight, let id { cancelLocked(id) }
                startLocked(id: id, body)
            case .timer(let timer, let action):
                if timer.cancelInFlight, let id = timer.id { cancelLocked(id) }
                startLocked(id: timer.id, timer.body(action))
            case .cancel(let id): cancelLocked(id)
            case .request(let id, let submit, let builtin):
                if host.currentMode == .builtin {
                    startLocked(id: id, builtin)
                } else {
                    nextEffectKey += 1
                    effects[nextEffectKey] = RunningEffect(id: id)
                    requestsToSubmit.append(PendingRequest(key: nextEffectKey, submit: submit))
                }
            }
        }
        return followUps
    }

    func startLocked(id: EffectID?, _ body: @escaping @Sendable (Send<F.Action>) async -> Void) {
        nextEffectKey += 1
        let key = nextEffectKey
        effects[key] = RunningEffect(id: id)
        let send = Send<F.Action> { [weak self] action in self?.receive(action, from: key) }
        let task: Task<Void, Never>
        if let effectExecutor {
            // Run by `settle`'s drain: on a manual clock, the effect's every step is the caller's.
            task = Task(executorPreference: effectExecutor) { [weak self] in
                await body(send)
                self?.finished(key)
            }
        } else {
            task = Task.detached { [weak self] in
                await body(send)
                self?.finished(key)
            }
        }
        effects[key]?.task = task
    }

    func finished(_ key: UInt64) {
        lock.withLock { _ = effects.removeValue(forKey: key) }
    }

    @usableFromInline
    func cancelLocked(_ id: EffectID) {
        for (key, effect) in effects where effect.id == id {
            // Marked now, so that nothing it sends is applied from here on.
            effects.removeValue(forKey: key)
            if let task = effect.task { tasksToCancel.append(task) }
            if let request = effect.request { requestsToCancel.append(request) }
        }
    }

    /// The encoder's scratch kept from the last encode, now this caller's. Lock held.
    @inlinable
    func takeScratchLocked() -> AnyObject? {
        let scratch = encodeScratch
        encodeScratch = nil
        return scratch
    }

    /// Encodes `state` (the state at `version`) with the plan and scratch taken under the
    /// lock, and keeps the bytes unless a newer version's are kept already, and the
    /// scratch. Called without the lock.
    @inlinable
    func encode(_ state: F.State, version: UInt64, plan: EncodingPlan?, scratch spare: AnyObject?) throws(FusionError) -> [UInt8] {
        let bytes: [UInt8]
        let newPlan: EncodingPlan?
        let scratch: AnyObject?
        do {
            (bytes, newPlan, scratch) = try JSONStreamEncoder().encode(state, plan: plan, scratch: spare)
        } catch {
            throw FusionError(.internalError, "the state of \"\(F.name)\" cannot be written as JSON: \(error)")
        }
        lock.lock()
        if encoded == nil || encoded!.version < version { encoded = (version, bytes) }
        lastEncodedCount = bytes.count
        if newPlan !== plan { statePlan = newPlan }
        if let scratch { encodeScratch = scratch }
        lock.unlock()
        return bytes
    }
}
