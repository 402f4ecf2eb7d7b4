import CFusionKit
import FusionHost

/// Why a call into a plugin's module stopped before it returned.
enum SandboxFault: Error, Sendable, CustomStringConvertible {
    /// The module trapped (unreachable, out-of-bounds access, a stack exhausted, …);
    /// `output` is what it wrote to stderr or stdout first (a Swift fatal error's words).
    case trapped(String, output: String)
    /// It ran out of its call's fuel (the time limit).
    case outOfTime(SandboxLimits)
    /// It asked for memory past the cap (and trapped on the failed allocation).
    case outOfMemory(SandboxLimits, asked: Int)
    /// A pointer or length it returned lies outside its memory: the module is not the
    /// contract's, and is treated as failed.
    case brokenContract(String)

    var status: FusionStatus {
        switch self {
        case .trapped, .brokenContract: return .pluginTrapped
        case .outOfTime, .outOfMemory: return .pluginLimit
        }
    }

    var statusName: String {
        status == .pluginLimit ? "FK_ERR_PLUGIN_LIMIT" : "FK_ERR_PLUGIN_TRAPPED"
    }

    var description: String {
        switch self {
        case .trapped(let trap, let output):
            let said = output.isEmpty ? "" : " (it wrote: \(output.count > 400 ? String(output.prefix(400)) + "…" : output))"
            return "the plugin trapped: \(trap)\(said)"
        case .outOfTime(let limits):
            let budget = limits.fuel.map { "its fuel budget (\($0) units)" } ?? "its time limit (\(limits.timeLimit), --plugin-time-limit)"
            return "the plugin ran past \(budget) and was stopped"
        case .outOfMemory(let limits, let asked):
            return "the plugin asked for \(asked) bytes of memory, past its cap of \(limits.memoryLimit) bytes (--plugin-memory-limit)"
        case .brokenContract(let what):
            return "the plugin broke the module contract: \(what)"
        }
    }
}
