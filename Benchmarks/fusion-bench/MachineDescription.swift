import Foundation

/// Where the numbers were measured.
struct MachineDescription {
    let cpu: String
    let cores: Int
    let memory: String
    let swift: String
    let date: String

    var json: [String: Any] { ["cpu": cpu, "cores": cores, "memory": memory, "swift": swift, "measured": date] }

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
