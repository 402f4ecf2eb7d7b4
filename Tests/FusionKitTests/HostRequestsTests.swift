import Testing

@testable import FusionKit

/// A feature whose effect awaits a host request with `host.request` inside `.run`.
private struct Lookup: Feature {
    static let name = "lookup"
    @JSONCoded
    enum Input: JSONCoded, Sendable { case start, stop }
    enum Action: Sendable { case start, stop, found(String), failed(String) }
    @JSONCoded
    struct State: JSONCoded, Equatable, Sendable {
        var result: String?
    }
    let host: HostRequests
    init(environment: Environment) { host = environment.host }
    var initialState: State { State() }
    func transform(_ input: Input, state: State) -> [Action] { input == .start ? [.start] : [.stop] }
    func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .start:
            return .run(id: "lookup") { [host] send in
                do {
                    send(.found(try await host.request(HostRequest<String>(kind: "lookup", payload: ["q": "x"]))))
                } catch is CancellationError {
                } catch {
                    send(.failed("\(error)"))
                }
            }
        case .stop: return .cancel(id: "lookup")
        case .found(let text): state.result = text
        case .failed(let text): state.result = "failed: " + text
        }
        return .none
    }
}

private final class Events: @unchecked Sendable {
    let lock = ConditionLock()
    var list: [JSONValue] = []
    func add(_ bytes: [UInt8]) { if let event = try? JSONParser.parse(bytes) { lock.withLock { list.append(event) } } }
    var all: [JSONValue] { lock.withLock { list } }
}

@Suite(.timeLimit(.minutes(1))) struct HostRequestsTests {
    fileprivate func make() -> (Store<Lookup>, HostRequests, Events) {
        let host = HostRequests(mode: .host)
        let events = Events()
        host.setHandler { events.add($0) }
        return (Store<Lookup>(environment: Environment(host: host)), host, events)
    }

    /// The id of the request the host was told about. Waiting for the event, not for
    /// `openCount`: a request is open a moment before its handler is called, and a test
    /// that read the events in between found none (seen under ThreadSanitizer).
    fileprivate func openRequest(_ host: HostRequests, _ events: Events) async -> UInt64 {
        while true {
            if let event = events.all.last(where: { $0["event"] == "request" }), case .integer(let id)? = event["id"] {
                return UInt64(id)
            }
            await Task.yield()
        }
    }

    @Test func anAwaitedRequestIsAnswered() async throws {
        let (store, host, events) = make()
        store.send(.start)
        let id = await openRequest(host, events)
        #expect(events.all.first?["kind"] == "lookup")
        #expect(events.all.first?["payload"] == ["q": "x"])
        try host.respond(id, with: "found it")
        await store.waitUntil(version: 1)
        #expect(store.state.result == "found it")
    }

    @Test func anAwaitedRequestCanFail() async throws {
        let (store, host, events) = make()
        store.send(.start)
        try host.fail(await openRequest(host, events), message: "nope")
        await store.waitUntil(version: 1)
        #expect(store.state.result == "failed: nope")
    }

    @Test func cancellingTheEffectCancelsTheRequestAndTellsTheHost() async throws {
        let (store, host, events) = make()
        store.send(.start)
        let id = await openRequest(host, events)
        store.send(.stop)
        while store.runningEffectCount > 0 { await Task.yield() }  // the effect ended
        #expect(host.openCount == 0)
        #expect(events.all.last == ["event": "cancel", "id": .integer(Int(id))])
        #expect(throws: FusionError.self) { try host.respond(id, with: "too late") }
        #expect(store.version == 0)
    }

    @Test func withoutAHostAndNoBuiltinAnswerTheRequestFails() async {
        let store = Store<Lookup>(environment: Environment())
        store.send(.start)
        await store.waitUntil(version: 1)
        #expect(store.state.result?.hasPrefix("failed: no host answers \"lookup\"") == true)
    }
}
