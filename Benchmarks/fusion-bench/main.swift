// fusion-bench: FusionKit's benchmarks. Not a test: it reports times and ratios
// against baselines measured in the same run, and with --write updates
// docs/performance.md. Run it with scripts/bench (a release build).
import CFusionKit  // the header's declarations: calls below are C calls into the exported symbols
import FusionExamples
import FusionKit
import Foundation

let arguments = CommandLine.arguments
let rounds = arguments.firstIndex(of: "--rounds").flatMap { Int(arguments[$0 + 1]) } ?? 21
let writePath = arguments.firstIndex(of: "--write").map { arguments[$0 + 1] }

var handle: fk_instance = 0
guard fk_create("counter", FK_NUL_TERMINATED, nil, 0, &handle) == FK_OK else {
    fatalError("cannot create a counter")
}
let increase = Array("\"increase\"".utf8CString)

let abiRoundTrip = Comparison(
    name: "Counter round trip: send \"increase\", read the state JSON",
    subject: "C ABI (fk_send + fk_state + fk_free)",
    baseline: "in-process Swift Store (send + encodedState)",
    iterations: 20_000,
    runSubject: { n in
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
    },
    runBaseline: { n in
        let store = Store<Counter>()
        for _ in 0..<n {
            store.send(.increase)
            _ = try? store.encodedState()
        }
    })

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

let tagged = Data("{\"increase\":{}}".utf8)
let foundationRoundTrip = Comparison(
    name: "Counter round trip: decode the input, apply, encode the state",
    subject: "C ABI (fk_send + fk_state + fk_free)",
    baseline: "Foundation JSONDecoder + JSONEncoder, in-process",
    iterations: 20_000,
    runSubject: abiRoundTrip.runSubject,
    runBaseline: { n in
        var counter = FoundationCounter()
        for _ in 0..<n { _ = counter.roundTrip(tagged) }
    })

let results = [abiRoundTrip, foundationRoundTrip].map { Harness.measure($0, rounds: rounds) }
_ = fk_destroy(handle)

var table = "| workload | subject | median | baseline | median | subject is |\n|---|---|---|---|---|---|\n"
for r in results {
    let faster = r.speedup >= 1 ? "\(Harness.format3(r.speedup))× faster" : "\(Harness.format3(1 / r.speedup))× slower"
    table += "| \(r.comparison.name) | \(r.comparison.subject) | \(Harness.format(nanos: r.subjectNanos)) | \(r.comparison.baseline) | \(Harness.format(nanos: r.baselineNanos)) | \(faster) |\n"
}
print(table)

if let writePath {
    let machine = MachineDescription.current()
    let document = PerformanceDocument.render(table: table, machine: machine, rounds: rounds)
    try document.write(toFile: writePath, atomically: true, encoding: .utf8)
    print("wrote \(writePath)")
}
