/// A running feature seen through JSON only: what the C ABI drives.
public protocol FeatureInstance: AnyObject, Sendable {
    var featureName: String { get }
    /// Applies one input given as UTF-8 JSON. Bad input throws and changes nothing.
    func send(json: UnsafeRawBufferPointer) throws(FusionError)
    /// The state as compact UTF-8 JSON and the version it belongs to.
    func stateJSON() throws(FusionError) -> (bytes: [UInt8], version: UInt64)
    var version: UInt64 { get }
    /// What changed since `version`, as JSON Patch or, when too old, the whole state (see `Store.patch`).
    func statePatch(since version: UInt64) throws(FusionError) -> (bytes: [UInt8], version: UInt64)
    /// See `Store.subscribe`. Nil once closed.
    func subscribe(_ callback: @escaping @Sendable (UInt64) -> Void) -> UInt64?
    func unsubscribe(_ id: UInt64) -> Bool
    /// Cancels effects and open host requests, drops subscribers.
    func close()
    /// Moves a manual clock and waits for the woken effects to settle.
    func advanceClock(by nanoseconds: UInt64) throws(FusionError)
    /// The instance's host requests: handler, polling, answers.
    var hostRequests: HostRequests { get }
}

/// A `Store` behind the JSON boundary.
final class JSONStore<F: Feature>: FeatureInstance {
    let store: Store<F>
    let inputs: InputCatalog

    let fieldless: FieldlessInputs<F>
    let environment: Environment

    init(store: Store<F>, inputs: InputCatalog, fieldless: FieldlessInputs<F>, environment: Environment) {
        self.store = store
        self.inputs = inputs
        self.fieldless = fieldless
        self.environment = environment
    }

    var hostRequests: HostRequests { environment.host }

    var featureName: String { F.name }

    func send(json: UnsafeRawBufferPointer) throws(FusionError) {
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(json)
        } catch {
            throw FusionError(error, in: "the input")
        }
        if let input = fieldless.input(for: parsed) {
            store.send(input)
            return
        }
        let input: F.Input
        do {
            input = try JSONValueDecoder().decode(F.Input.self, from: try inputs.normalize(parsed))
        } catch let error as FusionError {
            throw error
        } catch {
            throw FusionError(.invalidInput, "the input does not fit feature \"\(F.name)\": \(error)")
        }
        store.send(input)
    }

    func stateJSON() throws(FusionError) -> (bytes: [UInt8], version: UInt64) { try store.encodedState() }
    var version: UInt64 { store.version }
    func statePatch(since version: UInt64) throws(FusionError) -> (bytes: [UInt8], version: UInt64) { try store.patch(since: version) }
    func subscribe(_ callback: @escaping @Sendable (UInt64) -> Void) -> UInt64? { store.subscribe(callback) }
    func unsubscribe(_ id: UInt64) -> Bool { store.unsubscribe(id) }
    func close() {
        // Requests first: the host hears of each cancellation before destroy returns.
        environment.host.close()
        store.close()
    }

    func advanceClock(by nanoseconds: UInt64) throws(FusionError) {
        guard let clock = environment.clock as? ManualClock else {
            throw FusionError(.invalidArgument, "this \"\(F.name)\" instance runs on the system clock; create it with {\"clock\":\"manual\"} to advance time")
        }
        // Effects started by earlier inputs first reach their wait, so that their
        // deadlines count from the time they were started at, not from after the move.
        store.settle(waitingOn: clock, requests: environment.host)
        clock.advance(by: .nanoseconds(Int64(clamping: nanoseconds)))
        store.settle(waitingOn: clock, requests: environment.host)
    }
}

/// The inputs without fields, decoded once per feature: `"increase"` then costs a
/// table lookup instead of a trip through `Decodable`.
final class FieldlessInputs<F: Feature>: Sendable {
    private let table: [String: F.Input]

    init(_ catalog: InputCatalog) {
        var table: [String: F.Input] = [:]
        for item in catalog.cases where item.fields.isEmpty && item.value == nil {
            let wire: JSONValue = catalog.form == .bareString ? .string(item.name) : .object([JSONMember(item.name, .object([]))])
            if let input = try? JSONValueDecoder().decode(F.Input.self, from: wire) { table[item.name] = input }
        }
        self.table = table
    }

    /// The input `value` names, when it is a field-less case written `"name"` or `{"name":{}}`.
    @inline(__always)
    func input(for value: JSONValue) -> F.Input? {
        switch value {
        case .string(let name):
            return table[name]
        case .object(let members) where members.count == 1:
            guard case .object(let payload) = members[0].value, payload.isEmpty else { return nil }
            return table[members[0].key]
        default:
            return nil
        }
    }
}
