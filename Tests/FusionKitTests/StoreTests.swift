import Testing

@testable import FusionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small feature exercising every kind of effect.
private struct Probe: Feature {
    static let name = "probe"

    @JSONCoded

    enum Input: JSONCoded, Sendable {
        case set(value: Int)
        case touch
        case startTimer
        case stopTimer
        case chain
    }

    enum Action: Sendable {
        case set(Int)
        case tick
        case startTimer
        case stopTimer
        case first
        case second
        case third
    }

    @JSONCoded

    struct State: JSONCoded, Equatable, Sendable {
        var value = 0
        var ticks = 0
        var log: [String] = []
    }

    let clock: any FusionClock
    init(environment: Environment) { clock = environment.clock }
    var initialState: State { State() }

    func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .set(let value): return [.set(value)]
        case .touch: return [.set(state.value)]  // performs, changes nothing
        case .startTimer: return [.startTimer]
        case .stopTimer: return [.stopTimer]
        case .chain: return [.first, .third]
        }
    }

    func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .set(let value):
            state.value = value
        case .tick:
            state.ticks += 1
        case .startTimer:
            return .run(id: "timer", cancelInFlight: true) { [clock] send in
                while (try? await clock.sleep(for: .seconds(1))) != nil {
                    send(.tick)
                }
            }
        case .stopTimer:
            return .cancel(id: "timer")
        case .first:
            state.log.append("first")
            return .send(.second)
        case .second:
            state.log.append("second")
        case .third:
            state.log.append("third")
        }
        return .none
    }
}

/// Counts how often it is encoded, to prove an unchanged state is not encoded again:
/// by the thread that encodes, since tests run in parallel and a state is encoded on
/// the thread that asks for it (each test here runs on one thread).
private final class EncodeCounter: @unchecked Sendable {
    private let lock = ConditionLock()
    private var counts: [UInt: Int] = [:]

    func increment() { lock.withLock { counts[Self.thread, default: 0] += 1 } }
    var count: Int { lock.withLock { counts[Self.thread, default: 0] } }

    #if canImport(Glibc)
        private static var thread: UInt { UInt(pthread_self()) }
    #else
        private static var thread: UInt { UInt(bitPattern: pthread_self()) }
    #endif
}

private let encodeCount = EncodeCounter()

private struct Counted: Feature {
    static let name = "counted"
    @JSONCoded
    enum Input: String, JSONCoded, Sendable { case bump }
    typealias Action = Input
    @JSONCoded
    struct State: JSONCoded, Equatable, Sendable {
        var n = 0
        init() {}
        init(from decoder: any Decoder) throws { n = try decoder.singleValueContainer().decode(Int.self) }
        func encode(to encoder: any Encoder) throws {
            encodeCount.increment()
            var container = encoder.singleValueContainer()
            try container.encode(n)
        }
    }
    init(environment: Environment) {}
    var initialState: State { State() }
    func transform(_ input: Input, state: State) -> [Input] { [input] }
    func perform(_ action: Input, state: inout State) -> Effect<Input> {
        state.n += 1
        return .none
    }
}

@Suite(.timeLimit(.minutes(1))) struct StoreTests {
    @Test func versionGoesUpOnlyWhenStateChanges() {
        let store = Store<Probe>()
        #expect(store.version == 0)
        #expect(store.send(.set(value: 3)))
        #expect(store.version == 1)
        #expect(!store.send(.touch))
        #expect(store.version == 1)
        #expect(!store.send(.set(value: 3)))
        #expect(store.version == 1)
        #expect(store.state.value == 3)
    }

    @Test func followUpActionsRunRightAfterTheirSender() {
        let store = Store<Probe>()
        store.send(.chain)
        #expect(store.state.log == ["first", "second", "third"])
        #expect(store.version == 1)  // one input, one change
    }

    @Test func effectsFeedActionsBackOnTheClock() async {
        let clock = ManualClock()
        let store = Store<Probe>(environment: Environment(clock: clock))
        store.send(.startTimer)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.waitUntil(version: 1)
        #expect(store.state.ticks == 1)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.waitUntil(version: 2)
        #expect(store.state.ticks == 2)
    }

    @Test func cancelledEffectsSendNothingMore() async {
        let clock = ManualClock()
        let store = Store<Probe>(environment: Environment(clock: clock))
        store.send(.startTimer)
        await clock.waitForSleepers(1)
        store.send(.stopTimer)
        #expect(clock.advance(by: .seconds(5)) == 0)  // the sleeper was cancelled, not woken
        #expect(store.state.ticks == 0)
        #expect(store.version == 0)
    }

    @Test func closingCancelsEffectsAndIgnoresInputs() async {
        let clock = ManualClock()
        let store = Store<Probe>(environment: Environment(clock: clock))
        store.send(.startTimer)
        await clock.waitForSleepers(1)
        store.close()
        #expect(clock.sleeperCount == 0)
        #expect(!store.send(.set(value: 9)))
        #expect(store.state.value == 0)
    }

    @Test func subscribersHearEveryVersionInOrder() {
        let store = Store<Probe>()
        let seen = Recorder()
        let id = store.subscribe { seen.append($0) }
        for i in 1...5 { store.send(.set(value: i)) }
        store.send(.touch)
        #expect(id != nil)
        #expect(seen.values == [1, 2, 3, 4, 5])
        #expect(store.unsubscribe(id!))
        store.send(.set(value: 10))
        #expect(seen.values == [1, 2, 3, 4, 5])
        #expect(!store.unsubscribe(id!))
    }

    @Test func inputsFromManyThreadsAreAppliedOneAtATime() async {
        let store = Store<Counted>()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<2500 { store.send(.bump) } }
            }
        }
        #expect(store.state.n == 10_000)
        #expect(store.version == 10_000)
    }

    @Test func unchangedStateIsEncodedOnce() throws {
        let store = Store<Counted>()
        store.send(.bump)
        let before = encodeCount.count
        let first = try store.encodedState()
        let second = try store.encodedState()
        let after = encodeCount.count
        #expect(first.bytes == second.bytes)
        #expect(after - before == 1)
    }

    /// `sendAndWrite` into `capacity` bytes filled with "x": what it returned, and the bytes.
    private func written<F: Feature>(_ store: Store<F>, _ input: F.Input?, capacity: Int) throws -> (
        length: Int, version: UInt64, bytes: [UInt8]
    ) {
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: capacity)
        // (Result, not a throwing closure: Swift 6.3.1's IRGen crashes on a typed-throws
        // closure passed to withUnsafeMutableBytes here.)
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(FusionError) in
                if let input { return try store.sendAndWrite(input, into: buffer) }
                return try store.writeState(into: buffer)
            }
        }
        let (length, version) = try result.get()
        return (length, version, bytes)
    }

    @Test func stateWrittenIntoABufferIsTheEncodedStateAndANul() throws {
        let store = Store<Probe>()
        // The first write builds the plan; the ones after it write by the plan under the lock.
        for input: Probe.Input in [.set(value: 7), .chain, .set(value: -12_345), .touch, .chain] {
            let (length, version, bytes) = try written(store, input, capacity: 256)
            let encoded = try store.encodedState()
            #expect(Array(bytes[..<length]) == encoded.bytes)
            #expect(bytes[length] == 0)
            #expect(bytes[(length + 1)...].allSatisfy { $0 == UInt8(ascii: "x") })
            #expect(version == encoded.version && version == store.version)
        }
        let (length, version, bytes) = try written(store, nil, capacity: 256)
        #expect(Array(bytes[..<length]) == (try store.encodedState().bytes) && version == store.version)
    }

    @Test func aBufferTooSmallIsLeftAloneAndTheLengthSaysWhatItNeeds() throws {
        let store = Store<Probe>()
        _ = try written(store, .set(value: 1), capacity: 256)  // the plan is known from here
        let needed = try store.encodedState().bytes.count
        // Room for the JSON but not its NUL: nothing written, the input applied all the same.
        let (length, version, bytes) = try written(store, .set(value: 2), capacity: needed)
        #expect(length == needed && version == 2 && store.state.value == 2)
        #expect(bytes.allSatisfy { $0 == UInt8(ascii: "x") })
        let (asked, _) = try store.writeState(into: UnsafeMutableRawBufferPointer(start: nil, count: 0))
        #expect(asked == needed)
        let (fits, _, fitted) = try written(store, nil, capacity: needed + 1)
        #expect(fits == needed && fitted[needed] == 0)
    }

    @Test func stateWrittenWithoutAPlanOfItsOwnIsEncodedOncePerVersion() throws {
        // Counted's custom encode(to:) cannot be written by a plan alone under the lock.
        let store = Store<Counted>()
        let (length, version, bytes) = try written(store, .bump, capacity: 64)
        #expect(String(decoding: bytes[..<length], as: UTF8.self) == "1" && version == 1)
        let before = encodeCount.count
        let again = try written(store, nil, capacity: 64)
        let after = encodeCount.count
        #expect(again.length == length && again.bytes == bytes && after == before)
    }

    @Test func aLargeStateIsWrittenOutsideTheLock() throws {
        let store = Store<Probe>()
        _ = try written(store, .chain, capacity: 64)
        for _ in 0..<3000 { store.send(.chain) }  // about 50 KB of log: past Store.smallState
        let expected = try store.encodedState().bytes
        #expect(expected.count > Store<Probe>.smallState)
        for _ in 0..<2 {
            let (length, version, bytes) = try written(store, .chain, capacity: 128 * 1024)
            #expect(Array(bytes[..<length]) == (try store.encodedState().bytes) && version == store.version)
        }
    }
}

final class Recorder: @unchecked Sendable {
    private let lock = ConditionLock()
    private var stored: [UInt64] = []
    func append(_ value: UInt64) { lock.withLock { stored.append(value) } }
    var values: [UInt64] { lock.withLock { stored } }
}
