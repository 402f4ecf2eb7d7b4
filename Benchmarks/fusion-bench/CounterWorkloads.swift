import CFusionKit  // the header's declarations: these are C calls into the exported symbols
import Foundation
import FusionExamples
import FusionKit

/// The Counter round trip: send "increase", read the state JSON.
enum CounterWorkloads {
    /// The obvious alternative: Foundation's JSONDecoder and JSONEncoder on every round trip.
    struct FoundationCounter {
        enum Input: Decodable { case increase, decrease, reset, show, alertDismissed }
        var state = Counter.State()
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        mutating func roundTrip(_ input: Data) -> Data {
            if let decoded = try? decoder.decode(Input.self, from: input), case .increase = decoded { state.value += 1 }
            return (try? encoder.encode(state)) ?? Data()
        }
    }

    static func run(rounds: Int) -> [ComparisonResult] {
        var handle: fk_instance = 0
        guard fk_create("counter", FK_NUL_TERMINATED, nil, 0, &handle) == FK_OK else { fatalError("cannot create a counter") }
        defer { _ = fk_destroy(handle) }
        let increase = Array("\"increase\"".utf8CString)
        let abi: (Int) -> Void = { n in
            increase.withUnsafeBufferPointer { input in
                var json: UnsafeMutablePointer<CChar>?
                var length = 0
                var version: UInt64 = 0
                for _ in 0..<n {
                    _ = fk_send(handle, input.baseAddress, input.count - 1)
                    _ = fk_state(handle, &json, &length, &version)
                    fk_free(json)
                }
            }
        }
        // The same round trip in one call, into a buffer the caller owns.
        let oneCall: (Int) -> Void = { n in
            increase.withUnsafeBufferPointer { input in
                let data = UnsafeMutablePointer<CChar>.allocate(capacity: 1024)
                defer { data.deallocate() }
                var buffer = fk_buffer(data: data, capacity: 1024, length: 0, version: 0)
                for _ in 0..<n { _ = fk_send_and_read(handle, input.baseAddress, input.count - 1, &buffer) }
            }
        }
        let tagged = Data("{\"increase\":{}}".utf8)
        let viaFoundation: (Int) -> Void = { n in
            var counter = FoundationCounter()
            for _ in 0..<n { _ = counter.roundTrip(tagged) }
        }
        let foundation = Comparison(
            key: "counter", name: "Counter round trip from C", subject: "C ABI: fk_send + fk_state + fk_free",
            baseline: "Foundation JSONDecoder + JSONEncoder, in-process",
            iterations: 20_000, runSubject: abi, runBaseline: viaFoundation)
        let inProcess = Comparison(
            key: "abi-cost", name: "Counter round trip: the ABI's own cost", subject: "C ABI: fk_send + fk_state + fk_free",
            baseline: "Swift Store in-process: send + encodedState",
            iterations: 20_000, runSubject: abi,
            runBaseline: { n in
                let store = Store<Counter>()
                for _ in 0..<n {
                    store.send(.increase)
                    _ = try? store.encodedState()
                }
            })
        let oneCallFoundation = Comparison(
            key: "counter-one-call", name: "Counter round trip from C, one call",
            subject: "C ABI: fk_send_and_read into the caller's buffer", baseline: "Foundation JSONDecoder + JSONEncoder, in-process",
            iterations: 20_000, runSubject: oneCall, runBaseline: viaFoundation)
        return [foundation, oneCallFoundation, inProcess].map { Harness.measure($0, rounds: rounds) }
    }
}
