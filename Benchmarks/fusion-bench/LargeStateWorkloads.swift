import Foundation
import FusionExamples
import FusionKit

/// The Wi-Fi state with many networks: encoding it whole, and following one change.
enum LargeStateWorkloads {
    static func state(networks count: Int) -> WiFiSettings.State {
        let networks = (0..<count).map {
            Network(id: "network-\($0)", name: "Network \($0)", isSecured: $0 % 3 != 0, connectivity: Double($0 % 10) / 10 + 0.05)
        }
        return WiFiSettings.State(foundNetworks: networks, selectedNetworkID: "network-1")
    }

    static func encoding(rounds: Int) -> [ComparisonResult] {
        let value = state(networks: 1000)
        let foundation = JSONEncoder()
        let comparison = Comparison(
            key: "large", name: "Wi-Fi state with 1,000 networks to JSON", subject: "FusionKit JSONStreamEncoder",
            baseline: "Foundation JSONEncoder, same value",
            iterations: 20,
            runSubject: { n in for _ in 0..<n { _ = try? JSONStreamEncoder().encode(value) } },
            runBaseline: { n in for _ in 0..<n { _ = try? foundation.encode(value) } })
        return [Harness.measure(comparison, rounds: rounds)]
    }

    struct PatchRow {
        let networks: Int
        /// Nanoseconds per whole state and per patch, one sample each per round.
        let whole: [Double]
        let patch: [Double]
        let patchBytes: Int
        let wholeBytes: Int
    }

    /// One network's connectivity changes; the cost of the whole new state as JSON
    /// next to the cost of what `fk_state_patch` answers for the old state's version
    /// (`StatePatch.json`: the patch as JSON text, or the whole state when that costs less).
    static func patchScaling(rounds: Int) -> [PatchRow] {
        [10, 100, 1000, 10_000].map { count in
            let old = state(networks: count)
            var new = old
            new.foundNetworks[count / 2].connectivity = 0.99
            WiFiSettings.derive(&new)
            // Samples long enough that one interruption by the scheduler (tenths of a
            // millisecond on this machine) cannot decide a round: the patch, the shorter
            // of the two, runs for milliseconds per sample at every size (200 patches of
            // 100 networks took half a millisecond, and one round in 21 came out 1.8×).
            let iterations = max(30, 100_000 / count)
            let full = (try? JSONStreamEncoder().encode(new).count) ?? 0
            // As the store answers: the state's size known from its last write.
            let answer = {
                try StatePatch.json(from: old, version: 1, to: new, version: 2, wholeBytes: full) {
                    (try JSONStreamEncoder().encode(new), 2)
                }
            }
            let comparison = Comparison(
                key: "patch-\(count)", name: "\(count)", subject: "patch", baseline: "whole", iterations: iterations,
                runSubject: { n in for _ in 0..<n { _ = try? answer() } },
                runBaseline: { n in for _ in 0..<n { _ = try? JSONStreamEncoder().encode(new) } })
            let result = Harness.measure(comparison, rounds: rounds)
            let patch = (try? answer())?.bytes.count ?? 0
            return PatchRow(networks: count, whole: result.baseline, patch: result.subject, patchBytes: patch, wholeBytes: full)
        }
    }
}
