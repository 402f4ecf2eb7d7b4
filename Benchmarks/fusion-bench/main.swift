// fusion-bench: FusionKit's benchmarks. Not a test: every workload runs next to a
// baseline measured in the same run, interleaved, and every sample is kept.
// scripts/bench builds it in release mode, keeps what it measured in
// Benchmarks/results/fusion-bench.json, and Benchmarks/report renders that into
// docs/performance.md (medians, ratios, each target's verdict).
import Foundation

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

// One memory measurement in this fresh process, for the parent (MemoryWorkload).
if arguments.contains("--memory-child") {
    let data = try JSONSerialization.data(withJSONObject: MemoryWorkload.run().json, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
    exit(0)
}

let rounds = option("--rounds").flatMap(Int.init) ?? 21
/// Where to keep every sample (the raw results); without it the run only prints progress.
let rawPath = option("--raw")
/// `--only counter,large,patch,throughput,memory,start`: a subset, while working on one part.
let only = option("--only").map { Set($0.split(separator: ",").map(String.init)) }
func wanted(_ part: String) -> Bool { only?.contains(part) ?? true }

var results = RawResults()
results.rounds = rounds
if wanted("counter") {
    print("Counter round trips…")
    results.comparisons += CounterWorkloads.run(rounds: rounds)
}
if wanted("large") {
    print("Large state…")
    results.comparisons += LargeStateWorkloads.encoding(rounds: rounds)
}
if wanted("patch") {
    print("Patches at 10, 100, 1,000, 10,000 networks…")
    results.patchRows = LargeStateWorkloads.patchScaling(rounds: rounds)
}
if wanted("throughput") {
    print("Throughput…")
    results.throughput = ThroughputWorkload.run(rounds: max(3, rounds / 3))
}
if wanted("memory") {
    print("Memory, in fresh processes…")
    results.memory = MemoryWorkload.runInFreshProcesses(max(3, rounds / 7))
}
if wanted("start"), let probe = option("--start-probe"), let library = option("--library"), let runtime = option("--runtime") {
    print("Start…")
    results.start = StartWorkload.run(probe: probe, library: library, runtime: runtime, rounds: rounds)
}

if let rawPath {
    try results.write(to: rawPath, machine: MachineDescription.current())
    print("wrote \(rawPath)")
}
