/// Interleaved A/B timing: the subject and its baseline run in alternating rounds in
/// the same process, so that a noisy, shared machine slows both alike and the ratio
/// holds even when the absolute numbers wander.
struct Comparison {
    /// How the report finds this workload (and its target): "counter", "large", …
    let key: String
    let name: String
    let subject: String
    let baseline: String
    /// Work per round and side, in `Harness.slices` slices; `body` runs a slice's share.
    let iterations: Int
    let runSubject: (Int) -> Void
    let runBaseline: (Int) -> Void
}

struct ComparisonResult {
    let comparison: Comparison
    /// Nanoseconds per iteration, one sample per round, in round order (round i of the
    /// subject ran next to round i of the baseline).
    let subject: [Double]
    let baseline: [Double]

    var subjectNanos: Double { Harness.median(subject) }
    var baselineNanos: Double { Harness.median(baseline) }
}

enum Harness {
    /// Each side's sample in a round is the median of this many slices of its work, the
    /// two sides' slices interleaved: an interruption by the scheduler (which only ever
    /// adds time) lands in one slice of one side, and the median of the slices leaves it
    /// out, where one long sample would carry it into the round's ratio.
    static let slices = 5

    static func measure(_ comparison: Comparison, rounds: Int) -> ComparisonResult {
        // Warm up both: first calls pay for lazy initialisation and page faults.
        comparison.runSubject(max(1, comparison.iterations / 10))
        comparison.runBaseline(max(1, comparison.iterations / 10))
        let perSlice = max(1, comparison.iterations / slices)
        var subject: [Double] = []
        var baseline: [Double] = []
        for round in 0..<rounds {
            var subjectSlices: [Double] = []
            var baselineSlices: [Double] = []
            for slice in 0..<slices {
                // Alternate which goes first, so neither always runs on a warmer cache.
                if (round + slice) % 2 == 0 {
                    subjectSlices.append(time(perSlice, comparison.runSubject))
                    baselineSlices.append(time(perSlice, comparison.runBaseline))
                } else {
                    baselineSlices.append(time(perSlice, comparison.runBaseline))
                    subjectSlices.append(time(perSlice, comparison.runSubject))
                }
            }
            subject.append(median(subjectSlices))
            baseline.append(median(baselineSlices))
        }
        return ComparisonResult(comparison: comparison, subject: subject, baseline: baseline)
    }

    private static func time(_ iterations: Int, _ body: (Int) -> Void) -> Double {
        let clock = ContinuousClock()
        let elapsed = clock.measure { body(iterations) }
        let nanos = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        return nanos / Double(iterations)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
