import FusionKit
import Testing

/// `Effect.after` and `Effect.every`: time as data, run on the feature's clock.
@Suite struct TimedEffectTests {
    struct Beeper: Feature {
        static let name = "beeper"
        @JSONCoded
        enum Input: JSONCoded, Sendable { case arm, disarm, startBeeping, stopBeeping }
        enum Action: Sendable { case arm, disarm, startBeeping, stopBeeping, fire, beep }
        @JSONCoded
        struct State: JSONCoded, Equatable, Sendable {
            var fired = 0
            var beeps = 0
        }
        let clock: any FusionClock
        init(environment: Environment) { clock = environment.clock }
        var initialState: State { State() }
        func transform(_ input: Input, state: State) -> [Action] {
            switch input {
            case .arm: return [.arm]
            case .disarm: return [.disarm]
            case .startBeeping: return [.startBeeping]
            case .stopBeeping: return [.stopBeeping]
            }
        }
        func perform(_ action: Action, state: inout State) -> Effect<Action> {
            switch action {
            case .arm: return .after(.seconds(2), on: clock, id: "fuse", cancelInFlight: true, send: .fire)
            case .disarm: return .cancel(id: "fuse")
            case .startBeeping: return .every(.seconds(1), on: clock, id: "beeper", send: .beep)
            case .stopBeeping: return .cancel(id: "beeper")
            case .fire: state.fired += 1
            case .beep: state.beeps += 1
            }
            return .none
        }
    }

    @Test func afterFiresOnceWhenItsTimeHasComeAndNotOnceCancelled() async {
        let clock = ManualClock()
        let store = Store<Beeper>(environment: Environment(clock: clock))
        defer { store.close() }
        store.send(.arm)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        store.send(.arm)  // restarts the countdown: the first one is cancelled
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(store.state.fired == 0)
        clock.advance(by: .seconds(1))
        await store.waitUntil(version: 1)
        #expect(store.state.fired == 1)
        clock.advance(by: .seconds(10))
        store.send(.arm)
        await clock.waitForSleepers(1)
        store.send(.disarm)
        clock.advance(by: .seconds(10))
        #expect(store.state.fired == 1)
        #expect(store.runningEffectCount == 0)
    }

    @Test func everyFiresUntilCancelled() async {
        let clock = ManualClock()
        let store = Store<Beeper>(environment: Environment(clock: clock))
        defer { store.close() }
        store.send(.startBeeping)
        for beeps in 1...3 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            await store.waitUntil(version: UInt64(beeps))
        }
        #expect(store.state.beeps == 3)
        store.send(.stopBeeping)
        clock.advance(by: .seconds(5))
        #expect(store.state.beeps == 3)
    }
}
