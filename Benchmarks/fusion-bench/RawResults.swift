import Foundation

/// What one run measured, every sample of it, as the JSON that Benchmarks/results keeps
/// and Benchmarks/report renders into docs/performance.md. Nothing here is a verdict or
/// a median: the report computes those, the same way from a fresh run and from the
/// committed file.
struct RawResults {
    var rounds = 0
    var comparisons: [ComparisonResult] = []
    var patchRows: [LargeStateWorkloads.PatchRow] = []
    var throughput: ThroughputWorkload.Result?
    var memory: [MemoryWorkload.Result] = []
    var start: [String: [Double]]?

    func json(machine: MachineDescription) -> [String: Any] {
        #if DEBUG
            let build = "debug"
        #else
            let build = "release"
        #endif
        var json: [String: Any] = [
            "benchmark": "fusion-bench", "machine": machine.json, "rounds": rounds, "slices": Harness.slices, "build": build
        ]
        json["comparisons"] = comparisons.map { result -> [String: Any] in
            let c = result.comparison
            return [
                "key": c.key, "name": c.name, "subject": c.subject, "baseline": c.baseline, "iterations": c.iterations,
                "subjectNanos": result.subject, "baselineNanos": result.baseline
            ]
        }
        json["patch"] = patchRows.map { row -> [String: Any] in
            [
                "networks": row.networks, "wholeNanos": row.whole, "patchNanos": row.patch, "wholeBytes": row.wholeBytes,
                "patchBytes": row.patchBytes
            ]
        }
        if let t = throughput {
            json["throughput"] = [
                "rounds": t.oneThread.count, "slices": ThroughputWorkload.slices, "oneThread": t.oneThread, "twoThreads": t.twoThreads,
                "sharedInstance": t.sharedInstance, "controlOne": t.controlOne, "controlTwo": t.controlTwo, "lostInputs": t.lostInputs
            ]
        }
        json["memory"] = memory.map { $0.json }
        if let start { json["start"] = start }
        return json
    }

    func write(to path: String, machine: MachineDescription) throws {
        let data = try JSONSerialization.data(withJSONObject: json(machine: machine), options: [.prettyPrinted, .sortedKeys])
        try (String(decoding: data, as: UTF8.self) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
