/// The benchmark results as the Markdown that goes into docs/performance.md.
struct Report {
    var comparisons: [ComparisonResult] = []
    var patchRows: [LargeStateWorkloads.PatchRow] = []
    var throughput: ThroughputWorkload.Result?
    var memory: MemoryWorkload.Result?
    var start: StartWorkload.Result?

    func markdown() -> String {
        var text = "| workload | subject | median | baseline (same run) | median | subject is | target |\n|---|---|---|---|---|---|---|\n"
        for r in comparisons {
            let relation = r.speedup >= 1 ? "\(Harness.format3(r.speedup))× faster" : "\(Harness.format3(1 / r.speedup))× slower"
            text +=
                "| \(r.comparison.name) | \(r.comparison.subject) | \(Harness.format(nanos: r.subjectNanos)) | \(r.comparison.baseline) | \(Harness.format(nanos: r.baselineNanos)) | \(relation) | \(r.comparison.target) |\n"
        }
        if !patchRows.isEmpty {
            text +=
                "\nOne network's connectivity changes; the whole new state as JSON (baseline) next to the JSON Patch from the old state (`StateDiff`, what `fk_state_patch` returns). Target: a patch costs at most a tenth of the whole state.\n\n"
            text += "| networks | whole state | its size | patch | its size | patch / whole |\n|---|---|---|---|---|---|\n"
            for row in patchRows {
                text +=
                    "| \(row.networks) | \(Harness.format(nanos: row.fullNanos)) | \(row.fullBytes) B | \(Harness.format(nanos: row.patchNanos)) | \(row.patchBytes) B | \(Harness.format3(row.fraction)) |\n"
            }
            text += "\n![Whole state and patch cost by number of networks](patch-scaling.svg)\n"
        }
        if let throughput {
            let t = throughput
            text +=
                "\n| throughput (fk_send \"increase\"), and a pure-CPU control in the same rounds | per second | two threads / one |\n|---|---|---|\n"
            text += "| one thread, one instance (baseline) | \(Int(t.oneThread).formatted) inputs | |\n"
            text += "| two threads, one instance each | \(Int(t.twoThreads).formatted) inputs | \(Harness.format3(t.scaling))× |\n"
            text +=
                "| two threads, one shared instance | \(Int(t.sharedInstance).formatted) inputs | \(Harness.format3(t.sharedRatio))× |\n"
            text += "| control: pure CPU work (SplitMix64 steps), one thread | \(Int(t.controlOne).formatted) steps | |\n"
            text += "| control: the same on two threads | \(Int(t.controlTwo).formatted) steps | \(Harness.format3(t.controlScaling))× |\n"
            let perRound = zip(t.scalingPerRound, t.controlPerRound).map { "\(Harness.format3($0))× (control \(Harness.format3($1))×)" }
            let met = t.scaling >= 1.6 ? "met" : "NOT met"
            text +=
                "\n- Two threads on two instances: \(Harness.format3(t.scaling))× the one-thread rate (median of the rounds), the pure-CPU control \(Harness.format3(t.controlScaling))× in the same rounds; target at least 1.6×: \(met). Per round: \(perRound.joined(separator: ", ")).\n"
            text +=
                "- Two threads on one instance: \(t.lostInputs == 0 ? "no input lost" : "\(t.lostInputs.formatted) inputs LOST") (its version went up by exactly the inputs sent), at \(Harness.format3(t.sharedRatio))× the one-thread rate (the instance's inputs are applied one at a time).\n"
        }
        if let memory {
            text +=
                "\n| \(memory.count.formatted) Counter instances alive | resident memory per instance | heap (malloc) per instance |\n|---|---|---|\n"
            text +=
                "| created through the C ABI (fk_create, one input each) | \(Int(memory.abiBytesPerInstance).formatted) B | \(Int(memory.abiHeapPerInstance).formatted) B |\n"
            text +=
                "| baseline: bare Swift `Store<Counter>` | \(Int(memory.storeBytesPerInstance).formatted) B | \(Int(memory.storeHeapPerInstance).formatted) B |\n"
            let heapMet = memory.abiHeapPerInstance <= 1000 ? "met" : "NOT met"
            let residentMet = memory.abiBytesPerInstance <= 1000 ? "met" : "NOT met"
            text +=
                "\n- Per instance through the C ABI: \(Int(memory.abiHeapPerInstance).formatted) B of heap (target at most 1,000 B: \(heapMet)); resident memory \(Int(memory.abiBytesPerInstance).formatted) B (\(residentMet), and it moves between runs).\n"
        }
        if let start {
            func row(_ label: String, _ nanos: Double) -> String {
                "| \(label) | \(Harness.format(nanos: nanos)) | \(Harness.format3(nanos / start.runtimeNanos))× |\n"
            }
            text += "\n| start, in a fresh process | median | libswiftCore's time × |\n|---|---|---|\n"
            text += row("baseline: dlopen libswiftCore.so alone", start.runtimeNanos)
            text += row("a host's load: dlopen libFusionExamples.so, check the ABI version, read the manifest summary", start.loadNanos)
            text += row("the same, then the first Counter: its manifest entry, create, one input, destroy", start.firstCounterNanos)
            text += row("dlopen, check the ABI version, read the whole manifest (every feature described)", start.wholeManifestNanos)
            let met = start.loadRatio <= 2 ? "met" : "NOT met"
            text +=
                "\n- Start: a host's load (the library, the ABI check, the manifest summary) costs \(Harness.format3(start.loadRatio))× loading libswiftCore alone; target at most 2×: \(met). The first Counter round trip after it costs \(Harness.format3(start.firstCounterNanos / start.runtimeNanos))×; reading the whole manifest, which describes every feature, \(Harness.format3(start.wholeManifestNanos / start.runtimeNanos))×.\n"
        }
        return text
    }
}

extension Int {
    /// 1234567 as "1,234,567".
    var formatted: String {
        let digits = String(magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return (self < 0 ? "-" : "") + out
    }
}
