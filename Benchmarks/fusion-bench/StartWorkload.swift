import Foundation

/// A fresh process loading the library and reading its manifest, next to a fresh
/// process loading the Swift runtime alone; alternating, medians.
enum StartWorkload {
    struct Result {
        let libraryNanos: Double
        let runtimeNanos: Double
    }

    static func run(probe: String, library: String, runtime: String, rounds: Int) -> Result? {
        var withLibrary: [Double] = []
        var runtimeOnly: [Double] = []
        for _ in 0..<rounds {
            guard let a = measure(probe, "library", library), let b = measure(probe, "runtime", runtime) else { return nil }
            withLibrary.append(a)
            runtimeOnly.append(b)
        }
        return Result(libraryNanos: Harness.median(withLibrary), runtimeNanos: Harness.median(runtimeOnly))
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
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
