/// One instance of a feature inside a WebAssembly module (Embedded Swift; docs/wasm.md).
///
/// The module has one thread and no tasks: the host calls in one call at a time, and time
/// moves only when the host says so. So an instance is the store's rule with nothing
/// around it: an input is transformed, its actions performed in order (follow-ups right
/// after the action that sent them), a changed state is a new version; timed effects
/// (`Effect.after`, `Effect.every`) wait in a list the clock's moves fire, in deadline
/// order, as the native manual clock wakes its sleepers.
class WasmInstanceBase {
    /// Created without {"clock": "manual"}: the host moves this clock as its own time
    /// passes (`fk_elapse`); the page may not move it (`fk_advance_clock`), as natively.
    var onSystemClock = false
    /// The feature's name, for messages.
    var featureName: String { "" }
    /// The state's JSON, as the native library writes it.
    func stateJSON() -> [UInt8] { [] }
    /// How many changes the state has been through.
    var version: UInt64 { 0 }
    /// Applies an input given as JSON.
    func send(_ json: [UInt8]) throws(FusionError) {}
    /// Moves the clock forward and fires what is due.
    func advanceClock(by nanoseconds: UInt64) {}
    /// Nanoseconds until the next timed effect fires; nil when none waits.
    var nextWake: UInt64? { nil }
    /// Timed effects waiting (fk_pending's effects).
    var pendingEffects: Int { 0 }
    /// Returns to a kept version's state, as a new version (fk_goto); the version reached.
    func goto(version: UInt64) throws(FusionError) -> UInt64 { 0 }
    /// The versions kept and what made each (fk_history); nil when none are kept.
    var historyJSON: JSONValue? { nil }
    /// The patch from `version` to the state now (fk_state_patch's JSON).
    func statePatch(since version: UInt64) -> [UInt8] { [] }
    /// Who answers host requests: the library (`.builtin`) or the host.
    var requestMode: RequestMode = .builtin
    /// The next request or cancellation for the host, as fk_poll_request's JSON; nil: none.
    func pollRequest() -> [UInt8]? { nil }
    /// Host requests waiting for an answer.
    var openRequests: Int { 0 }
    /// Answers open request `id` with a result (fk_respond).
    func respond(_ id: UInt64, with result: JSONValue) throws(FusionError) {}
    /// Answers open request `id` with an error (fk_fail_request).
    func fail(_ id: UInt64, message: String) throws(FusionError) {}
}

final class WasmInstance<F: Feature>: WasmInstanceBase {
    /// A timed effect waiting for its deadline.
    struct Waiting {
        let key: UInt64
        let id: EffectID?
        var deadline: Duration
        /// Set for `every`: the wait between firings.
        let interval: Duration?
        let action: F.Action
    }

    let feature: F
    let clock: ManualClock
    let inputs: InputCatalog
    var state: F.State
    var currentVersion: UInt64 = 0
    var waiting: [Waiting] = []
    var nextKey: UInt64 = 0
    /// The versions kept for time travel (option "history"); nil: none.
    var timeline: Timeline<F.State>?
    /// The versions a patch can start from, kept once a patch was first asked for, as the
    /// native store keeps them (its `patchHistoryLimit`, 16, the most recent last).
    var patchHistory: [(version: UInt64, state: F.State)]?
    static var patchHistoryLimit: Int { 16 }
    /// Host requests asked and not answered yet, by id (mode "host").
    var open: [UInt64: EffectRequest<F.Action>] = [:]
    var nextRequestID: UInt64 = 0
    /// Requests and cancellations the host has not polled yet, in order.
    var events: [[UInt8]] = []

    override var featureName: String { F.name }

    init(feature: F, clock: ManualClock, state: F.State) {
        self.feature = feature
        self.clock = clock
        self.state = state
        inputs = InputCatalog(featureName: F.name, shape: F.Input.jsonShape)
    }

    override func stateJSON() -> [UInt8] {
        var writer = JSONWriter()
        state.writeJSON(into: &writer)
        return writer.bytes
    }

    override var version: UInt64 { currentVersion }

    override func send(_ json: [UInt8]) throws(FusionError) {
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(json)
        } catch {
            throw FusionError(.malformedJSON, "the input is not JSON: \(error.description)")
        }
        let input = try inputs.read(parsed, as: F.Input.self)
        timeline?.nextCause = .input(json)
        apply(feature.transform(input, state: state))
    }

    /// Performs the actions and those they send; schedules their timed effects.
    func apply(_ actions: [F.Action]) {
        let before = state
        feature.performInOrder(actions, on: &state) { start($0) }
        if state != before {
            recordChange()
        } else {
            timeline?.nextCause = .effect
        }
    }

    /// A new version, kept for time travel and patches.
    func recordChange() {
        currentVersion += 1
        timeline?.record(version: currentVersion, state: state)
        if patchHistory != nil {
            patchHistory!.append((currentVersion, state))
            if patchHistory!.count > Self.patchHistoryLimit { patchHistory!.removeFirst() }
        }
    }

    override func statePatch(since version: UInt64) -> [UInt8] {
        if patchHistory == nil { patchHistory = [(currentVersion, state)] }
        let base = patchHistory?.last(where: { $0.version == version }).map { (state: $0.state.jsonValue, version: version) }
        let now = stateJSON()
        let parsed = (try? JSONParser.parse(now)) ?? .null
        return WasmStatePatch.json(from: base, to: parsed, nowBytes: now, version: currentVersion)
    }

    /// As the native `Store.goto`: timed effects belong to the abandoned future and are
    /// cancelled, the versions after it forgotten, and the next input branches from there.
    override func goto(version: UInt64) throws(FusionError) -> UInt64 {
        guard let timeline else {
            throw FusionError(
                .invalidArgument,
                "this \"\(F.name)\" instance keeps no history; create it with the option {\"history\": N} to keep N versions")
        }
        guard let restored = try timeline.stateToRestore(version, current: currentVersion) else { return version }
        waiting.removeAll()
        timeline.dropFrom(version)
        timeline.nextCause = .restored(version)
        state = restored
        recordChange()
        return currentVersion
    }

    override var historyJSON: JSONValue? { timeline?.json(current: currentVersion) }

    /// Starts an effect's work; returns the actions it sends at once.
    func start(_ effect: Effect<F.Action>) -> [F.Action] {
        var followUps: [F.Action] = []
        for work in effect.work {
            switch work {
            case .send(let action): followUps.append(action)
            case .timer(let timer, let action):
                if timer.cancelInFlight, let id = timer.id { cancel(id) }
                nextKey += 1
                waiting.append(
                    Waiting(
                        key: nextKey, id: timer.id, deadline: clock.now + max(.zero, timer.delay),
                        interval: timer.repeats ? timer.delay : nil, action: action))
            case .cancel(let id): cancel(id)
            case .request(let request): open(request)
            }
        }
        return followUps
    }

    func cancel(_ id: EffectID) {
        waiting.removeAll { $0.id == id }
        cancelledWhileFiring.append(id)
        // As natively, the host is told of each request it no longer needs to answer.
        for (requestID, request) in open.sorted(by: { $0.key < $1.key }) where request.id == id {
            open[requestID] = nil
            events.append(JSONWriter.serialize(["event": "cancel", "id": .integer(Int(requestID))]))
        }
    }

    /// A host request: to the host (mode "host"), or the library's own answer on the clock.
    func open(_ request: EffectRequest<F.Action>) {
        guard requestMode == .host else {
            nextKey += 1
            let action = request.sample ?? request.failure(.noAnswer(request.kind))
            waiting.append(Waiting(key: nextKey, id: request.id, deadline: clock.now + request.sampleDelay, interval: nil, action: action))
            return
        }
        nextRequestID += 1
        open[nextRequestID] = request
        events.append(
            JSONWriter.serialize([
                "event": "request", "id": .integer(Int(nextRequestID)), "kind": .string(request.kind), "payload": request.payload
            ]))
    }

    override func pollRequest() -> [UInt8]? { events.isEmpty ? nil : events.removeFirst() }

    override var openRequests: Int { open.count }

    override func respond(_ id: UInt64, with result: JSONValue) throws(FusionError) {
        guard let request = open[id] else { throw unknownRequest(id) }
        let action: F.Action
        do throws(JSONCodingError) {
            action = try request.answer(result)
        } catch {
            throw FusionError(.invalidResponse, "the response to request \(id) (\"\(request.kind)\") does not fit: \(error.description)")
        }
        open[id] = nil
        timeline?.nextCause = .response
        apply([action])
    }

    override func fail(_ id: UInt64, message: String) throws(FusionError) {
        guard let request = open.removeValue(forKey: id) else { throw unknownRequest(id) }
        timeline?.nextCause = .response
        apply([request.failure(HostRequestError(message))])
    }

    func unknownRequest(_ id: UInt64) -> FusionError {
        FusionError(.unknownRequest, "there is no open request \(id): it was never made, was already answered, or was cancelled")
    }

    /// Ids cancelled while due effects fire: a repeating one whose id is among them (by
    /// its own action, or replaced by a new one) does not wait again.
    var cancelledWhileFiring: [EffectID] = []

    /// As the native manual clock: the time moves at once, then each timed effect that is
    /// due fires in deadline order (one cancelled by an earlier one's action does not),
    /// and a repeating one waits again from the new time.
    override func advanceClock(by nanoseconds: UInt64) {
        clock.advance(by: .nanoseconds(Int64(clamping: nanoseconds)))
        let now = clock.now
        var due = waiting.filter { $0.deadline <= now }
        due.sort { $0.deadline < $1.deadline }
        for fired in due {
            // Gone: cancelled by an action applied before it.
            guard let index = waiting.firstIndex(where: { $0.key == fired.key }) else { continue }
            waiting.remove(at: index)
            cancelledWhileFiring = []
            apply([fired.action])
            guard let interval = fired.interval else { continue }
            if let id = fired.id, cancelledWhileFiring.contains(id) { continue }
            nextKey += 1
            waiting.append(Waiting(key: nextKey, id: fired.id, deadline: clock.now + interval, interval: interval, action: fired.action))
        }
        cancelledWhileFiring = []
    }

    override var nextWake: UInt64? {
        guard let first = waiting.map({ $0.deadline }).min() else { return nil }
        let wait = first - clock.now
        return wait <= .zero ? 0 : UInt64(wait.components.seconds) * 1_000_000_000 + UInt64(wait.components.attoseconds / 1_000_000_000)
    }

    override var pendingEffects: Int { waiting.count }
}
