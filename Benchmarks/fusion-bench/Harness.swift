/// Interleaved A/B timing: the subject and its baseline run in alternating rounds in
/// the same process, so that a noisy, shared machine slows both alike and the ratio
/// holds even when the absolute numbers wander.
struct Comparison {
    let name: String
    let subject: String
    let baseline: String
    /// What the issue asks of this workload, shown next to the result.
    let target: String
    /// Work per round; `body` runs it `iterations` times.
    let iterations: Int
    let runSubject: (Int) -> Void
    let runBaseline: (Int) -> Void
}

struct ComparisonResult {
    let comparison: Comparison
    /// Median nanoseconds per iteration.
    let subjectNanos: Double
    let baselineNanos: Double

    /// How many times faster the subject is than the baseline.
    var speedup: Double { baselineNanos / subjectNanos }
}

enum Harness {
    static func measure(_ comparison: Comparison, rounds: Int) -> ComparisonResult {
        // Warm up both: first calls pay for lazy initialisation and page faults.
        comparison.runSubject(max(1, comparison.iterations / 10))
        comparison.runBaseline(max(1, comparison.iterations / 10))
        var subject: [Double] = []
        var baseline: [Double] = []
        for round in 0..<rounds {
            // Alternate which goes first, so neither always runs on a warmer cache.
            if round % 2 == 0 {
                subject.append(time(comparison.iterations, comparison.runSubject))
                baseline.append(time(comparison.iterations, comparison.runBaseline))
            } else {
                baseline.append(time(comparison.iterations, comparison.runBaseline))
                subject.append(time(comparison.iterations, comparison.runSubject))
            }
        }
        return ComparisonResult(comparison: comparison, subjectNanos: median(subject), baselineNanos: median(baseline))
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

    static func format(nanos: Double) -> String {
        if nanos >= 1_000_000 { return String(format3(nanos / 1_000_000)) + " ms" }
        if nanos >= 1_000 { return String(format3(nanos / 1_000)) + " µs" }
        return String(format3(nanos)) + " ns"
    }

    /// Three significant digits, without Foundation's String(format:).
    static func format3(_ value: Double) -> String {
        let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if digits == 0, text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
