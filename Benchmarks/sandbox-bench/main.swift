// The sandbox's costs beside the native library's, in one process: the round trip (an
// input sent and the state read back, through FusionHost as every host calls a library),
// the memory an instance takes, and the time a module takes to load. Run by
// Benchmarks/sandbox/run.py, which keeps what it prints (one JSON object).
//
//     sandbox-bench --library libFusionExamples.so --module FusionExamples.wasm
//         [--rounds 21] [--per-round 2000] [--instances 200]
import FusionHost
import FusionSandbox
import HeapProbe

#if canImport(Glibc)
    import Glibc
#endif

func complain(_ text: String) {
    let line = "sandbox-bench: \(text)\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}

struct Options {
    var library = ""
    var module = ""
    var rounds = 21
    var perRound = 2000
    var instances = 200

    init(_ arguments: [String]) {
        var words = arguments.dropFirst().makeIterator()
        while let word = words.next() {
            let value = words.next() ?? ""
            switch word {
            case "--library": library = value
            case "--module": module = value
            case "--rounds": rounds = Int(value) ?? rounds
            case "--per-round": perRound = Int(value) ?? perRound
            case "--instances": instances = Int(value) ?? instances
            default:
                complain("unknown argument \(word)")
                exit(2)
            }
        }
        if library.isEmpty || module.isEmpty {
            complain("usage: sandbox-bench --library LIB.so --module MODULE.wasm [--rounds N] [--per-round N] [--instances N]")
            exit(2)
        }
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func residentBytes() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    _ = withUnsafeMutablePointer(to: &size) { sizeOut in
        withUnsafeMutablePointer(to: &resident) { residentOut in
            withVaList([sizeOut, residentOut]) { vfscanf(file, "%ld %ld", $0) }
        }
    }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// What each workload sends, in turn: every input changes the state (as page-bench's).
let workloads: [(name: String, feature: String, options: String?, inputs: [String])] = [
    ("counter", "counter", nil, ["\"increase\""]),
    ("wifi", "wifi", "{\"settings\":{\"liveScan\":false}}", ["{\"infoButtonTapped\":{\"id\":\"blob\"}}", "\"destinationDismissed\""])
]

func run() throws {
    let options = Options(CommandLine.arguments)
    // Loading: the first load of a module in a process measures the interpreter's speed
    // (the time limit's fuel rate) once; later loads do not.
    var start = ContinuousClock.now
    let native = try HostedLibrary(path: options.library)
    let nativeLoad = seconds(.now - start)
    start = .now
    let sandboxed = try HostedLibrary(path: options.module, backend: try SandboxedLibrary(path: options.module))
    let firstLoad = seconds(.now - start)
    var laterLoads: [Double] = []
    for _ in 0..<10 {
        start = .now
        _ = try HostedLibrary(path: options.module, backend: try SandboxedLibrary(path: options.module))
        laterLoads.append(seconds(.now - start))
    }

    // Round trips, the four interleaved, the order turned round every other round.
    var instances: [String: (HostedInstance, [String])] = [:]
    for (label, library) in [("native", native), ("sandbox", sandboxed)] {
        for workload in workloads {
            let instance = try library.create(feature: workload.feature, optionsJSON: workload.options)
            for index in 0..<500 { try instance.send(workload.inputs[index % workload.inputs.count]) }
            instances["\(label)-\(workload.name)"] = (instance, workload.inputs)
        }
    }
    let names = workloads.flatMap { ["native-\($0.name)", "sandbox-\($0.name)"] }
    var rounds: [[String: Double]] = []
    for round in 0..<options.rounds {
        var sample: [String: Double] = [:]
        for name in round % 2 == 0 ? names : names.reversed() {
            let (instance, inputs) = instances[name]!
            let began = ContinuousClock.now
            for index in 0..<options.perRound {
                try instance.send(inputs[index % inputs.count])
                _ = try instance.state()
            }
            sample[name] = seconds(.now - began) * 1e9 / Double(options.perRound)
        }
        rounds.append(sample)
    }

    // Memory per Counter instance, many of each kind: malloc's bytes in use (a native
    // instance lives in the heap) and resident bytes (a module's memory is mapped apart).
    var memory: [String: Double] = [:]
    var heap: [String: Double] = [:]
    for (label, library) in [("native", native), ("sandbox", sandboxed)] {
        let before = residentBytes()
        let heapBefore = heap_probe_bytes_in_use()
        var kept: [HostedInstance] = []
        for _ in 0..<options.instances {
            let instance = try library.create(feature: "counter", optionsJSON: nil)
            try instance.send("\"increase\"")
            _ = try instance.state()
            kept.append(instance)
        }
        memory[label] = Double(residentBytes() - before) / Double(options.instances)
        heap[label] = Double(Int(heap_probe_bytes_in_use()) - Int(heapBefore)) / Double(options.instances)
        for instance in kept { try instance.destroy() }
    }
    func number(_ value: Double) -> String { "\((value * 1000).rounded() / 1000)" }
    var out = "{\"rounds\":["
    out += rounds.map { sample in
        "{" + sample.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\(number($0.value))" }.joined(separator: ",") + "}"
    }
    .joined(separator: ",")
    out += "],\"residentBytesPerInstance\":{\"native\":\(number(memory["native"] ?? 0)),\"sandbox\":\(number(memory["sandbox"] ?? 0))}"
    out += ",\"heapBytesPerInstance\":{\"native\":\(number(heap["native"] ?? 0)),\"sandbox\":\(number(heap["sandbox"] ?? 0))}"
    out +=
        ",\"loadMilliseconds\":{\"native\":\(number(nativeLoad * 1000) ),\"first\":\(number(firstLoad * 1000)),\"later\":[\(laterLoads.map { number($0 * 1000) }.joined(separator: ","))]}"
    out += ",\"perRound\":\(options.perRound),\"instances\":\(options.instances)}"
    print(out)
}

do { try run() } catch {
    complain("\(error)")
    exit(1)
}
