import FusionHost
import WasmKit

/// A plugin's WebAssembly module, parsed and checked once: what every instance of the
/// plugin is instantiated from. It must export the module contract of docs/wasm.md (what
/// `scripts/build-wasm` builds from a FusionKit library); a module lacking a function of
/// it is refused by name at load.
final class PluginModule: @unchecked Sendable {
    // @unchecked: `Engine` is Sendable and `Module` is a parsed, immutable value; both
    // are only read after init.
    let path: String
    let module: Module
    let engine: Engine
    let limits: SandboxLimits

    /// The exports every call path needs: checked at load.
    static let requiredExports = [
        "memory", "fk_alloc", "fk_free", "fk_manifest", "fk_create", "fk_destroy", "fk_send", "fk_state", "fk_state_patch",
        "fk_version", "fk_advance_clock", "fk_elapse", "fk_next_wake", "fk_pending_effects", "fk_pending_requests",
        "fk_poll_request", "fk_respond", "fk_fail_request", "fk_last_error_status", "fk_last_error_message", "fk_goto",
        "fk_history", "fk_status_name"
    ]

    /// The type of every function of the contract (Wasm/Runtime/WasmExports.swift): checked
    /// at load, on the instantiation that describes the library.
    static let signatures: [String: FunctionType] = {
        let (i32, i64) = (ValueType.i32, ValueType.i64)
        return [
            "fk_alloc": FunctionType(parameters: [i32], results: [i32]),
            "fk_free": FunctionType(parameters: [i32], results: []),
            "fk_manifest": FunctionType(parameters: [], results: [i32]),
            "fk_create": FunctionType(parameters: [i32, i32, i32, i32], results: [i32]),
            "fk_destroy": FunctionType(parameters: [i32], results: []),
            "fk_send": FunctionType(parameters: [i32, i32, i32], results: [i32]),
            "fk_state": FunctionType(parameters: [i32], results: [i32]),
            "fk_state_patch": FunctionType(parameters: [i32, i64], results: [i32]),
            "fk_version": FunctionType(parameters: [i32], results: [i64]),
            "fk_advance_clock": FunctionType(parameters: [i32, i64], results: [i32]),
            "fk_elapse": FunctionType(parameters: [i32, i64], results: [i32]),
            "fk_next_wake": FunctionType(parameters: [i32], results: [i64]),
            "fk_pending_effects": FunctionType(parameters: [i32], results: [i32]),
            "fk_pending_requests": FunctionType(parameters: [i32], results: [i32]),
            "fk_poll_request": FunctionType(parameters: [i32], results: [i32]),
            "fk_respond": FunctionType(parameters: [i32, i64, i32, i32], results: [i32]),
            "fk_fail_request": FunctionType(parameters: [i32, i64, i32, i32], results: [i32]),
            "fk_last_error_status": FunctionType(parameters: [], results: [i32]),
            "fk_last_error_message": FunctionType(parameters: [], results: [i32]),
            "fk_goto": FunctionType(parameters: [i32, i64], results: [i64]),
            "fk_history": FunctionType(parameters: [i32], results: [i32]),
            "fk_status_name": FunctionType(parameters: [i32], results: [i32])
        ]
    }()

    /// The imports a module may have: the four WASI functions wasi-libc calls. Anything
    /// else is refused at load: a plugin reaches nothing of the host but these.
    static let allowedImports: Set<String> = [
        "wasi_snapshot_preview1.fd_write", "wasi_snapshot_preview1.fd_close", "wasi_snapshot_preview1.fd_seek",
        "wasi_snapshot_preview1.random_get"
    ]

    init(path: String, bytes: [UInt8], limits: SandboxLimits) throws(FusionHostError) {
        let module: Module
        do {
            module = try parseWasm(bytes: bytes)
        } catch {
            throw .invalidManifest(path: path, reason: "not a WebAssembly module WasmKit can read: \(error)")
        }
        let exported = Set(module.exports.map(\.name))
        for name in Self.requiredExports where !exported.contains(name) {
            throw .missingEntryPoint(path: path, symbol: name)
        }
        for entry in module.imports where !Self.allowedImports.contains("\(entry.module).\(entry.name)") {
            throw .invalidManifest(
                path: path,
                reason:
                    "it imports \(entry.module).\(entry.name); a sandboxed plugin may import only \(Self.allowedImports.sorted().joined(separator: ", "))"
            )
        }
        self.path = path
        self.module = module
        self.limits = limits
        engine = Engine(configuration: EngineConfiguration(fuelMetering: true))
    }

    /// A fresh instantiation: its own store, memory and globals.
    func instantiate() throws(SandboxFault) -> ModuleInstance {
        try ModuleInstance(plugin: self)
    }
}
