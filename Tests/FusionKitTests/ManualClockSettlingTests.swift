import Foundation
import FusionKit
import Testing

/// An instance on a manual clock runs its effects itself: every call returns with each
/// effect parked (asleep on the clock, waiting for the host, or finished), exactly and
/// whatever the load; an effect that waits on anything else is FK_ERR_UNSETTLED, named.
@Suite struct ManualClockSettlingTests {
    /// A feature whose `tick` effect chains several waits on its clock, and whose `stray`
    /// effect waits on the real clock, which a manual-clock instance cannot settle.
    struct Chain: Feature {
        static let name = "chain"
        static let summary = "Ticks on its clock; strays off it."
        @JSONCoded
        enum Input: JSONCoded, Sendable { case tick, stray }
        enum Action: Sendable { case start, step, strayed }
        @JSONCoded
        struct State: JSONCoded, Equatable, Sendable { var steps = 0 }
        let clock: any FusionClock
        init(environment: Environment) { clock = environment.clock }
        var initialState: State { State() }
        func transform(_ input: Input, state: State) -> [Action] { input == .tick ? [.start] : [.strayed] }
        func perform(_ action: Action, state: inout State) -> Effect<Action> {
            switch action {
            case .start:
                return .run(id: "chain.tick") { [clock] send in
                    for _ in 0..<3 {
                        await Task.yield()  // a hop through the executor between waits, too
                        guard (try? await clock.sleep(for: .milliseconds(100))) != nil else { return }
                        send(.step)
                    }
                }
            case .step:
                state.steps += 1
            case .strayed:
                return .run(id: "chain.stray") { _ in try? await Task.sleep(for: .seconds(30)) }
            }
            return .none
        }
    }

    func instance() throws -> any FeatureInstance {
        var options = InstanceOptions()
        options.clock = .manual
        return try FeatureDefinition(Chain.self).makeInstance(options: options)
    }

    func steps(_ instance: any FeatureInstance) throws -> JSONValue? {
        try JSONParser.parse(instance.stateJSON().bytes)["steps"]
    }

    @Test func everyWokenEffectRunsToItsNextWaitBeforeTheCallReturns() throws {
        let chain = try instance()
        defer { chain.close() }
        try Array(#""tick""#.utf8).withUnsafeBytes { try chain.send(json: $0) }
        #expect(chain.pending.effects == 1)  // already asleep on the clock: it ran at once
        for expected in 1...3 {
            try chain.advanceClock(by: 100_000_000)
            #expect(try steps(chain) == .integer(expected))
        }
        #expect(chain.pending.effects == 0)
    }

    @Test func anEffectWaitingOnSomethingElseIsNamedNotWaitedFor() throws {
        let chain = try instance()
        defer { chain.close() }
        let input = Array(#""stray""#.utf8)
        let refused = #expect(throws: FusionError.self) {
            try input.withUnsafeBytes { try chain.send(json: $0) }
        }
        #expect(refused?.status == .unsettled)
        #expect(refused?.message.contains(#""chain""#) == true && refused?.message.contains(#""chain.stray""#) == true)
        // The input itself was applied (it changed nothing here); the clock still refuses to settle it.
        let again = #expect(throws: FusionError.self) { try chain.advanceClock(by: 1) }
        #expect(again?.status == .unsettled)
    }

    @Test(arguments: 0..<8) func settlesExactlyUnderLoad(_ round: Int) async throws {
        // Many instances at once on the pool, each settling on its own calling thread.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let chain = try instance()
                    defer { chain.close() }
                    try Array(#""tick""#.utf8).withUnsafeBytes { try chain.send(json: $0) }
                    for _ in 0..<3 { try chain.advanceClock(by: 100_000_000) }
                    #expect(try steps(chain) == .integer(3), "round \(round)")
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func callsOnOneInstanceFromManyThreadsNeitherDeadlockNorFailToSettle() async throws {
        let chain = try instance()
        defer { chain.close() }
        // Four callers at once on one instance: each drain runs what it takes, none waits
        // on another's, and none takes another's running effect for one that cannot settle.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<5 {
                        try Array(#""tick""#.utf8).withUnsafeBytes { try chain.send(json: $0) }
                        try chain.advanceClock(by: 100_000_000)
                    }
                }
            }
            try await group.waitForAll()
        }
        for _ in 0..<3 { try chain.advanceClock(by: 100_000_000) }
        #expect(chain.pending.effects == 0)
        #expect(try steps(chain) == .integer(60))  // 20 chains of 3 steps each, none lost
    }
}
