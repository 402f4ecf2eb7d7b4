import ArgumentParser
import FusionSandbox

/// `--plugin-time-limit` and `--plugin-memory-limit`: what one call of a sandboxed plugin
/// (a `.wasm` library) may use. Native libraries are not limited by them.
struct PluginLimitOptions: ParsableArguments {
    @Option(
        name: .customLong("plugin-time-limit"),
        help: ArgumentHelp(
            "How long one call of a .wasm plugin may run before it is stopped (FK_ERR_PLUGIN_LIMIT): 1s, 250ms.",
            valueName: "time"))
    var timeLimit: String = "1s"

    @Option(
        name: .customLong("plugin-memory-limit"),
        help: ArgumentHelp("The memory one instance of a .wasm plugin may have: 64MiB, 512KiB.", valueName: "bytes"))
    var memoryLimit: String = "64MiB"

    func validate() throws {
        if SandboxLimits.duration(parsing: timeLimit) == nil {
            throw ValidationError("--plugin-time-limit \(timeLimit): give a time above 0 and at most 24h, such as 1s, 250ms, 2.5s or 2min")
        }
        if SandboxLimits.bytes(parsing: memoryLimit) == nil {
            throw ValidationError("--plugin-memory-limit \(memoryLimit): give a size from 64KiB to 1TiB, such as 64MiB or 512KiB")
        }
    }

    var limits: SandboxLimits {
        SandboxLimits(
            timeLimit: SandboxLimits.duration(parsing: timeLimit) ?? SandboxLimits.defaultTimeLimit,
            memoryLimit: SandboxLimits.bytes(parsing: memoryLimit) ?? SandboxLimits.defaultMemoryLimit)
    }
}
