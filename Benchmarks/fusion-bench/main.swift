// fusion-bench: FusionKit's benchmarks. Not a test: every workload runs next to a
// baseline measured in the same run, interleaved, and reports medians and ratios.
// scripts/bench builds it in release mode and writes docs/performance.md.
import Foundation

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
let rounds = option("--rounds").flatMap(Int.init) ?? 21
let writePath = option("--write")
let plotPath = option("--plot")
/// `--only counter,large,patch,throughput,memory,start`: a subset, while working on one part.
let only = option("--only").map { Set($0.split(separator: ",").map(String.init)) }
func wanted(_ part: String) -> Bool { only?.contains(part) ?? true }

var report = Report()
if wanted("counter") {
    print("Counter round trips…")
    report.comparisons += CounterWorkloads.run(rounds: rounds)
}
if wanted("large") {
    print("Large state…")
    report.comparisons += LargeStateWorkloads.encoding(rounds: rounds)
}
if wanted("patch") {
    print("Patches at 10, 100, 1,000, 10,000 networks…")
    report.patchRows = LargeStateWorkloads.patchScaling(rounds: rounds)
}
if wanted("throughput") {
    print("Throughput…")
    report.throughput = ThroughputWorkload.run(rounds: max(5, rounds / 3))
}
if wanted("memory") {
    print("Memory…")
    report.memory = MemoryWorkload.run()
}
if wanted("start"), let probe = option("--start-probe"), let library = option("--library"), let runtime = option("--runtime") {
    print("Start…")
    report.start = StartWorkload.run(probe: probe, library: library, runtime: runtime, rounds: rounds)
}

let markdown = report.markdown()
print(markdown)
if let plotPath {
    try PatchPlot.svg(report.patchRows).write(toFile: plotPath, atomically: true, encoding: .utf8)
    print("wrote \(plotPath)")
}
if let writePath {
    guard only == nil else {
        print("--only runs a subset; not writing \(writePath)")
        exit(2)
    }
    let document = PerformanceDocument.render(table: markdown, machine: MachineDescription.current(), rounds: rounds)
    try document.write(toFile: writePath, atomically: true, encoding: .utf8)
    print("wrote \(writePath)")
}
