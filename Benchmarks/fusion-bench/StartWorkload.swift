import Foundation

/// Fresh processes getting a library to work, next to a fresh process loading the Swift
/// runtime alone (Benchmarks/start/start_probe.c says what each mode does); the modes
/// alternate round by round, and each row is a median.
enum StartWorkload {
    /// Nanoseconds per fresh process, one sample per round for each mode: "runtime"
    /// (dlopen libswiftCore alone: the baseline), "library" (what a host does at load:
    /// dlopen, the ABI check, the manifest summary), "counter" (the load, then the first
    /// Counter: its entry, fk_create, one input, fk_destroy), "manifest" (dlopen, the ABI
    /// check, the whole manifest: every feature described).
    static func run(probe: String, library: String, runtime: String, rounds: Int) -> [String: [Double]]? {
        var samples: [String: [Double]] = [:]
        let modes = [("runtime", runtime), ("library", library), ("counter", library), ("manifest", library)]
        for round in 0..<rounds {
            // A rotating order, so that drift on a shared machine reaches every mode alike.
            for index in modes.indices {
                let (mode, path) = modes[(index + round) % modes.count]
                guard let nanos = measure(probe, mode, path) else { return nil }
                samples[mode, default: []].append(nanos)
            }
        }
        return samples
    }

    private static func measure(_ probe: String, _ mode: String, _ path: String) -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: probe)
        process.arguments = [mode, path]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
