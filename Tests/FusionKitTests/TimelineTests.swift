import Testing

@testable import FusionKit

/// A feature with a timer, for time travel with effects in flight.
private struct Ticker: Feature {
    static let name = "ticker"
    @JSONCoded
    enum Input: String, JSONCoded, Sendable { case bump, start }
    enum Action: Sendable { case bump, start, tick }
    @JSONCoded
    struct State: JSONCoded, Equatable, Sendable {
        var bumps = 0
        var ticks = 0
    }
    let clock: any FusionClock
    init(environment: Environment) { clock = environment.clock }
    var initialState: State { State() }
    func transform(_ input: Input, state: State) -> [Action] { input == .bump ? [.bump] : [.start] }
    func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .bump: state.bumps += 1
        case .tick: state.ticks += 1
        case .start:
            return .run(id: "ticker") { [clock] send in
                while (try? await clock.sleep(for: .seconds(1))) != nil { send(.tick) }
            }
        }
        return .none
    }
}

@Suite(.timeLimit(.minutes(1))) struct TimelineTests {
    private func causes(_ store: Store<Ticker>) -> [String] {
        guard case .array(let entries)? = store.historyJSON?["entries"] else { return [] }
        return entries.map { entry in
            let version = entry["version"]?.jsonText ?? "?"
            return "v\(version) \(entry["cause"]?.stringValue ?? "?")"
        }
    }

    @Test func offUnlessAsked() {
        let store = Store<Ticker>()
        store.send(.bump)
        #expect(store.historyJSON == nil)
        #expect(throws: FusionError.self) { try store.goto(version: 0) }
        #expect(store.state.bumps == 1)
    }

    @Test func goingBackIsANewVersionWithTheOldState() throws {
        let store = Store<Ticker>()
        store.keepTimeline(limit: 10)
        store.send(.bump)
        store.send(.bump)
        store.send(.bump)
        #expect(try store.goto(version: 1) == 4)
        #expect(store.state.bumps == 1)
        #expect(store.version == 4)
        // The future is forgotten, and the next input branches from the restored state.
        #expect(causes(store) == ["v0 start", "v4 goto"])
        store.send(.bump)
        #expect(store.state.bumps == 2)
        #expect(causes(store) == ["v0 start", "v4 goto", "v5 input"])
        #expect(store.historyJSON?["entries"]?.elements?[1]["restored"] == .integer(1))
    }

    @Test func aVersionNotKeptIsRefusedAndChangesNothing() {
        let store = Store<Ticker>()
        store.keepTimeline(limit: 3)
        for _ in 0..<5 { store.send(.bump) }
        // Kept: v3, v4, v5.
        #expect(causes(store) == ["v3 input", "v4 input", "v5 input"])
        do {
            try store.goto(version: 1)
            Issue.record("goto of a version not kept was applied")
        } catch {
            #expect(error.status == .invalidArgument)
            #expect(error.message.contains("v3, v4, v5"))
        }
        #expect(store.version == 5)
        #expect(store.state.bumps == 5)
    }

    @Test func goingToTheCurrentVersionChangesNothing() throws {
        let store = Store<Ticker>()
        store.keepTimeline(limit: 5)
        store.send(.bump)
        #expect(try store.goto(version: 1) == 1)
        #expect(store.version == 1)
    }

    @Test func goingBackCancelsTheEffectsOfTheAbandonedFuture() async throws {
        let clock = ManualClock()
        let store = Store<Ticker>(environment: Environment(clock: clock))
        store.keepTimeline(limit: 10)
        store.send(.bump)
        store.send(.start)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.waitUntil(version: 2)
        try store.goto(version: 1)
        #expect(store.runningEffectCount == 0)
        #expect(clock.advance(by: .seconds(5)) == 0)  // the ticker was cancelled, not woken
        #expect(store.state == Ticker.State(bumps: 1, ticks: 0))
    }

    @Test func effectChangesAreListedAsEffects() async {
        let clock = ManualClock()
        let store = Store<Ticker>(environment: Environment(clock: clock))
        store.keepTimeline(limit: 10)
        store.send(.start)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.waitUntil(version: 1)
        #expect(causes(store) == ["v0 start", "v1 effect"])
        store.close()
    }

    @Test func subscribersAndPatchesSeeTheGotoAsAChange() throws {
        let store = Store<Ticker>()
        store.keepTimeline(limit: 10)
        let heard = Locked<[UInt64]>([])
        _ = store.subscribe { version in heard.withLock { $0.append(version) } }
        _ = try store.patch(since: 0)
        store.send(.bump)
        store.send(.bump)
        try store.goto(version: 0)
        #expect(heard.withLock { $0 } == [1, 2, 3])
        let patch = try JSONParser.parse(try store.patch(since: 2).bytes)
        #expect(patch["to"] == .integer(3))
        #expect((patch["patch"] ?? .null).jsonText == #"[{"op":"replace","path":"/bumps","value":0}]"#)
    }

    @Test func keepsAtMostItsLimit() {
        let store = Store<Ticker>()
        store.keepTimeline(limit: 4)
        for _ in 0..<1000 { store.send(.bump) }
        #expect(causes(store) == ["v997 input", "v998 input", "v999 input", "v1000 input"])
    }
}

private extension JSONValue {
    var elements: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
