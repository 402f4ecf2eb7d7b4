import Foundation

// A plain record (as the workloads' results are): alike in shape, not in meaning.
/// Where the numbers were measured.
struct MachineDescription {
    let cpu: String
    let cores: Int
    let memory: String
    let swift: String
    let date: String

    static func current() -> MachineDescription {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let kb =
            meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal") }
            .flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Double($0) } } ?? 0
        let formatter = ISO8601DateFormatter()
        #if compiler(>=6.3)
            let swift = "Swift 6.3 or later"
        #else
            let swift = "Swift before 6.3"
        #endif
        return MachineDescription(
            cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount,
            memory: String(format: "%.0f GiB", kb / 1_048_576), swift: swift, date: formatter.string(from: Date()))
    }
}

enum PerformanceDocument {
    static let begin = "<!-- fusion-bench:begin -->"
    static let end = "<!-- fusion-bench:end -->"

    /// Replaces the measured section of docs/performance.md, keeping the prose around it.
    static func render(table: String, machine: MachineDescription, rounds: Int) -> String {
        let measured = """
            \(begin)
            Measured \(machine.date) on \(machine.cpu), \(machine.cores) cores, \(machine.memory), \(machine.swift), release build;
            medians of \(rounds) interleaved rounds.

            \(table)
            \(end)
            """
        let path = "docs/performance.md"
        guard let existing = try? String(contentsOfFile: path, encoding: .utf8),
            let start = existing.range(of: begin), let stop = existing.range(of: end)
        else { return "# Performance\n\n" + measured + "\n" }
        return String(existing[..<start.lowerBound]) + measured + String(existing[stop.upperBound...])
    }
}
