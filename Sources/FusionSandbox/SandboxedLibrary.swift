import CFusionKit
import FusionHost
import WasmKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plugin compiled to WebAssembly (a `.wasm` module built by `scripts/build-wasm`), run
/// in WasmKit behind the C ABI's meaning: the backend of a `HostedLibrary`, so every host
/// drives it as a native library.
///
/// Each instance gets its own instantiation of the module (its own memory), every call a
/// fuel budget (the time limit) and every module a memory cap. A trap, a budget run out or
/// the cap reached fails that call (FK_ERR_PLUGIN_TRAPPED, FK_ERR_PLUGIN_LIMIT) and marks
/// that instance failed; the process and the other instances go on.
///
/// What differs from a native library: no checkpoints (`fk_checkpoint`,
/// `fk_restart_effects`), no `fk_limit` (the sandbox's own limits stand in), and a
/// subscriber hears the last version after each call rather than every version in it.
public final class SandboxedLibrary: LibraryBackend, @unchecked Sendable {
    // @unchecked: `plugin` is immutable; `instances`, `nextHandle` and `lastErrors` are
    // touched under `lock`, the describer under its own.
    let plugin: PluginModule
    private let manifestText: String
    private let version: String
    private let lock = ThreadLock()
    private var instances: [UInt64: SandboxedInstance] = [:]
    private var nextHandle: UInt64 = 0
    private var lastErrors: [UInt: String] = [:]
    private var faults: [String: Int] = [:]

    /// Loads the module at `path` (read whole, parsed and checked once) with `limits`.
    public init(path: String, limits: SandboxLimits = SandboxLimits()) throws(FusionHostError) {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path) } catch { throw .cannotLoad(path: path, reason: "\(error)") }
        plugin = try PluginModule(path: path, bytes: bytes, limits: limits)
        // The manifest, from an instantiation made for it alone and dropped after; first,
        // that its exports are the contract's.
        let describer: ModuleInstance
        do throws(SandboxFault) {
            describer = try plugin.instantiate()
        } catch {
            throw .invalidManifest(path: path, reason: "the module failed while it was instantiated: \(error)")
        }
        do throws(SandboxFault) { try describer.checkSignatures() } catch {
            throw .invalidManifest(path: path, reason: "it does not follow the module contract of docs/wasm.md: \(error)")
        }
        let described: [UInt8]
        do throws(SandboxFault) {
            guard let text = try describer.takeText(try describer.callI32("fk_manifest", [])) else {
                throw .brokenContract("fk_manifest gave nothing")
            }
            described = text
        } catch {
            throw .invalidManifest(path: path, reason: "the module failed while describing itself: \(error)")
        }
        // Read from the bytes: text that is not UTF-8 is refused, not mended.
        guard case .object(var members)? = try? JSONParser.parse(described) else {
            throw .invalidManifest(path: path, reason: "fk_manifest did not give a JSON object in UTF-8")
        }
        let abi = members.first { $0.key == "abiVersion" }?.value.integerValue
        guard abi == Int(FK_ABI_VERSION) else {
            throw .invalidManifest(
                path: path,
                reason: "its manifest says ABI version \(abi.map(String.init) ?? "none"); this host speaks \(FK_ABI_VERSION)")
        }
        // The optional functions are the sandbox's to say: it answers these for any module.
        let listed = JSONValue.array(Self.optionalFunctions.map { JSONValue.string($0) })
        for index in members.indices where members[index].key == "optionalFunctions" {
            members[index].value = listed
        }
        let manifest = JSONValue.object(members)
        manifestText = manifest.jsonText
        version = manifest["library"]?["version"]?.stringValue ?? "0"
    }

    /// The optional functions of include/fusionkit.h a sandboxed plugin has.
    static let optionalFunctions = [
        "fk_create_with_options", "fk_state_patch", "fk_advance_clock", "fk_pending", "fk_next_wake", "fk_set_request_handler",
        "fk_poll_request", "fk_respond", "fk_fail_request", "fk_history", "fk_goto"
    ]
    static let requiredFunctions = [
        "fk_abi_version", "fk_library_version", "fk_status_name", "fk_last_error_message", "fk_manifest", "fk_free", "fk_create",
        "fk_destroy", "fk_send", "fk_state", "fk_version", "fk_subscribe", "fk_unsubscribe"
    ]

    public var exportedSymbols: Set<String> { Set(Self.requiredFunctions + Self.optionalFunctions) }
    public var isSandboxed: Bool { true }
    public var limits: SandboxLimits { plugin.limits }

    /// How many calls failed on a fault, by status name: what `fusion serve`'s metrics count.
    public var faultCounts: [String: Int] { lock.locked { faults } }

    func recordFault(_ fault: SandboxFault) {
        lock.locked { faults[fault.statusName, default: 0] += 1 }
    }

    // MARK: Errors

    private func failing<R>(_ body: () throws(FusionHostError) -> R) throws(FusionHostError) -> R {
        do {
            let result = try body()
            lock.locked { _ = lastErrors.removeValue(forKey: Self.thread) }
            return result
        } catch {
            let message: String
            if case .failed(let failure) = error { message = failure.message } else { message = error.description }
            lock.locked { lastErrors[Self.thread] = message }
            throw error
        }
    }

    private static var thread: UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self())))) }

    private static func refused(_ function: String, _ status: FusionStatus, _ message: String) -> FusionHostError {
        .failed(CallFailure(function: function, status: status, statusName: statusName(status.rawValue), message: message))
    }

    private func instance(_ handle: UInt64, _ function: String) throws(FusionHostError) -> SandboxedInstance {
        guard let found = lock.locked({ instances[handle] }) else {
            throw Self.refused(function, .invalidHandle, "no live instance \(handle): destroyed, stale or made up")
        }
        return found
    }

    // MARK: The library

    public func abiVersion() -> UInt32 { UInt32(FK_ABI_VERSION) }
    public func libraryVersion() -> String { version }

    static let statusNames = [
        "FK_OK", "FK_ERR_NULL_ARGUMENT", "FK_ERR_INVALID_HANDLE", "FK_ERR_INVALID_UTF8", "FK_ERR_MALFORMED_JSON",
        "FK_ERR_UNKNOWN_FEATURE", "FK_ERR_UNKNOWN_INPUT", "FK_ERR_INVALID_INPUT", "FK_ERR_INVALID_STATE", "FK_ERR_INVALID_ARGUMENT",
        "FK_ERR_UNKNOWN_SUBSCRIPTION", "FK_ERR_INTERNAL", "FK_ERR_UNKNOWN_REQUEST", "FK_ERR_INVALID_RESPONSE", "FK_ERR_LIMIT_EXCEEDED",
        "FK_ERR_UNSETTLED", "FK_ERR_BUSY", "FK_ERR_PLUGIN_TRAPPED", "FK_ERR_PLUGIN_LIMIT", "FK_ERR_INSTANCE_FAILED"
    ]

    public static func statusName(_ status: Int32) -> String {
        status >= 0 && Int(status) < statusNames.count ? statusNames[Int(status)] : "FK_ERR_UNKNOWN_STATUS"
    }

    public func statusName(_ status: Int32) -> String { Self.statusName(status) }
    public func lastErrorMessage() -> String { lock.locked { lastErrors[Self.thread] ?? "" } }
    public func manifest() throws(FusionHostError) -> String { manifestText }

    public func manifestSummary() throws(FusionHostError) -> String {
        throw .missingEntryPoint(path: plugin.path, symbol: "fk_manifest_summary")
    }

    public func featureManifest(_ feature: String) throws(FusionHostError) -> String {
        throw .missingEntryPoint(path: plugin.path, symbol: "fk_feature_manifest")
    }

    // MARK: Instances

    public func create(feature: String, stateJSON: String?) throws(FusionHostError) -> UInt64 {
        try failing { () throws(FusionHostError) in
            guard let stateJSON else { return try make(feature, options: .object([]), function: "fk_create") }
            let state: JSONValue
            do throws(JSONParseError) { state = try JSONParser.parse(stateJSON) } catch {
                throw Self.refused(
                    "fk_create", error.kind == .invalidUTF8 ? .invalidUTF8 : .malformedJSON,
                    "the state is not valid JSON: \(error.description)")
            }
            return try make(feature, options: .object([JSONMember("state", state)]), function: "fk_create")
        }
    }

    public func createWithOptions(feature: String, optionsJSON: String?) throws(FusionHostError) -> UInt64 {
        try failing { () throws(FusionHostError) in
            guard let optionsJSON, !optionsJSON.isEmpty else {
                return try make(feature, options: .object([]), function: "fk_create_with_options")
            }
            let options: JSONValue
            do throws(JSONParseError) { options = try JSONParser.parse(optionsJSON) } catch {
                throw Self.refused(
                    "fk_create_with_options", error.kind == .invalidUTF8 ? .invalidUTF8 : .malformedJSON,
                    "the options are not valid JSON: \(error.description)")
            }
            return try make(feature, options: options, function: "fk_create_with_options")
        }
    }

    private func make(_ feature: String, options: JSONValue, function: String) throws(FusionHostError) -> UInt64 {
        let handle = lock.locked { () -> UInt64 in
            nextHandle += 1
            return nextHandle
        }
        let onSystemClock = options["clock"]?.stringValue != "manual"
        let text = options.members?.isEmpty == true ? [] : Array(options.jsonText.utf8)
        let made = try SandboxedInstance(handle: handle, feature: feature, options: text, onSystemClock: onSystemClock, library: self)
        lock.locked { instances[handle] = made }
        return handle
    }

    public func destroy(_ instance: UInt64) throws(FusionHostError) {
        try failing { () throws(FusionHostError) in
            guard let found = lock.locked({ instances.removeValue(forKey: instance) }) else {
                if instance == 0 { return }
                throw Self.refused("fk_destroy", .invalidHandle, "no live instance \(instance): destroyed, stale or made up")
            }
            found.destroy()
        }
    }

    public func send(_ instance: UInt64, _ inputJSON: String) throws(FusionHostError) {
        try failing { () throws(FusionHostError) in
            try self.instance(instance, "fk_send").run("fk_send", mutates: true) { (module, handle, _) throws(SandboxFault) in
                let status = try module.withText(Array(inputJSON.utf8)) { (json, length) throws(SandboxFault) in
                    try module.callI32("fk_send", [handle, json, length])
                }
                return status == 0 ? .done(()) : .refused(status)
            }
        }
    }

    public func state(_ instance: UInt64) throws(FusionHostError) -> (json: String, version: UInt64) {
        try failing { () throws(FusionHostError) in try self.instance(instance, "fk_state").state() }
    }

    public func statePatch(_ instance: UInt64, since: UInt64) throws(FusionHostError) -> (json: String, version: UInt64) {
        try failing { () throws(FusionHostError) in
            let found = try self.instance(instance, "fk_state_patch")
            let answer: (String, UInt64)? = try found.run("fk_state_patch") { (module, handle, offset) throws(SandboxFault) in
                // A version from before a recovery is not the module's to know: the whole state.
                guard since >= offset else { return .done(nil) }
                guard let text = try module.takeText(try module.callI32("fk_state_patch", [handle, .i64(since - offset)])) else {
                    throw .brokenContract("fk_state_patch gave nothing for a live instance")
                }
                let version = UInt64(bitPattern: try module.callI64("fk_version", [handle])) + offset
                return .done((try Self.patchEnvelope(text, shiftedBy: offset), version))
            }
            if let answer { return answer }
            let (state, version) = try found.state()
            return ("{\"from\":null,\"to\":\(version),\"state\":\(state)}", version)
        }
    }

    /// What fk_state_patch wrote, checked and written again by the host: an object of
    /// exactly "from" (a version or null), "to" (a version) and "patch" (an array) or
    /// "state", its versions moved up by `offset`. A bridge splices this object into its
    /// own messages, so a plugin's text is never passed on as it came: one with other
    /// members ("instance", "type") would otherwise speak for the bridge.
    static func patchEnvelope(_ text: [UInt8], shiftedBy offset: UInt64) throws(SandboxFault) -> String {
        let parsed: JSONValue
        do throws(JSONParseError) { parsed = try JSONParser.parse(text) } catch {
            throw .brokenContract("fk_state_patch returned text that is not one JSON value (\(error))")
        }
        func version(_ value: JSONValue?) -> JSONValue? {
            guard let number = value?.integerValue, number >= 0 else { return nil }
            return .integer(number + Int(offset))
        }
        let wanted = "\"from\", \"to\" and \"patch\" or \"state\""
        guard let members = parsed.members else {
            throw .brokenContract("fk_state_patch returned \(parsed.kindDescription), not an object of \(wanted)")
        }
        let keys = Set(members.map(\.key))
        guard members.count == 3, keys == ["from", "to", "patch"] || keys == ["from", "to", "state"] else {
            throw .brokenContract(
                "fk_state_patch returned an object of other members than \(wanted): \(members.map(\.key).joined(separator: ", "))")
        }
        guard let to = version(parsed["to"]), let from = parsed["from"] == .null ? JSONValue.null : version(parsed["from"]) else {
            throw .brokenContract("fk_state_patch returned a \"from\" or \"to\" that is not a version")
        }
        if let patch = parsed["patch"], case .array = patch {
            return JSONValue.object([JSONMember("from", from), JSONMember("to", to), JSONMember("patch", patch)]).jsonText
        }
        if let state = parsed["state"], from == .null {
            return JSONValue.object([JSONMember("from", .null), JSONMember("to", to), JSONMember("state", state)]).jsonText
        }
        throw .brokenContract("fk_state_patch returned a \"patch\" that is not a list, or a whole \"state\" with a \"from\" version")
    }

    /// A JSON object's version members moved up by `offset` (also in "entries"), for an
    /// instance whose module was made again (`recover`); the text as it is otherwise.
    static func shifted(_ text: String, by offset: UInt64, keys: Set<String>) -> String {
        guard offset > 0, case .object(let members)? = try? JSONParser.parse(text) else { return text }
        func shift(_ members: [JSONMember]) -> [JSONMember] {
            members.map { member in
                if keys.contains(member.key), let value = member.value.integerValue, value >= 0 {
                    return JSONMember(member.key, .integer(value + Int(offset)))
                }
                if member.key == "entries", let list = member.value.elements {
                    return JSONMember(member.key, .array(list.map { $0.members.map { .object(shift($0)) } ?? $0 }))
                }
                return member
            }
        }
        return JSONValue.object(shift(members)).jsonText
    }

    public func version(_ instance: UInt64) throws(FusionHostError) -> UInt64 {
        try failing { () throws(FusionHostError) in
            let found = try self.instance(instance, "fk_version")
            if found.failed != nil { return try found.state().version }
            return try found.run("fk_version") { (module, handle, offset) throws(SandboxFault) in
                .done(UInt64(bitPattern: try module.callI64("fk_version", [handle])) + offset)
            }
        }
    }

    public func subscribe(_ instance: UInt64, _ callback: fk_change_fn?, _ userData: UnsafeRawPointer?) throws(FusionHostError) -> UInt64 {
        try failing { () throws(FusionHostError) in
            guard let callback else { throw Self.refused("fk_subscribe", .nullArgument, "callback is NULL") }
            return try self.instance(instance, "fk_subscribe").subscribe(callback, userData)
        }
    }

    public func unsubscribe(_ instance: UInt64, _ subscription: UInt64) throws(FusionHostError) {
        try failing { () throws(FusionHostError) in
            guard try self.instance(instance, "fk_unsubscribe").unsubscribe(subscription) else {
                throw Self.refused("fk_unsubscribe", .unknownSubscription, "no subscription \(subscription) on instance \(instance)")
            }
        }
    }

    // MARK: Time

    public func advanceClock(_ instance: UInt64, nanoseconds: UInt64) throws(FusionHostError) {
        try failing { () throws(FusionHostError) in
            try self.instance(instance, "fk_advance_clock").run("fk_advance_clock", mutates: true) {
                (module, handle, _) throws(SandboxFault) in
                let status = try module.callI32("fk_advance_clock", [handle, .i64(nanoseconds)])
                return status == 0 ? .done(()) : .refused(status)
            }
        }
    }

    public func nextWake(_ instance: UInt64) throws(FusionHostError) -> UInt64 {
        try failing { () throws(FusionHostError) in
            try self.instance(instance, "fk_next_wake").run("fk_next_wake") { (module, handle, _) throws(SandboxFault) in
                let wake = try module.callI64("fk_next_wake", [handle])
                return .done(wake < 0 ? UInt64.max : UInt64(wake))
            }
        }
    }

    public func pending(_ instance: UInt64) throws(FusionHostError) -> (effects: UInt64, requests: UInt64) {
        try failing { () throws(FusionHostError) in
            try self.instance(instance, "fk_pending").run("fk_pending") { (module, handle, _) throws(SandboxFault) in
                let effects = try module.callI32("fk_pending_effects", [handle])
                let requests = try module.callI32("fk_pending_requests", [handle])
                return .done((UInt64(max(0, effects)), UInt64(max(0, requests))))
            }
        }
    }

    // MARK: Host requests

    public func setRequestHandler(_ instance: UInt64, _ handler: fk_request_fn?, _ userData: UnsafeRawPointer?) throws(FusionHostError) {
        try failing { () throws(FusionHostError) in
            try self.instance(instance, "fk_set_request_handler").setRequestHandler(handler, userData)
        }
    }

    public func pollRequest(_ instance: UInt64) throws(FusionHostError) -> String? {
        try failing { () throws(FusionHostError) in
            try self.instance(instance, "fk_poll_request").run("fk_poll_request") { (module, handle, _) throws(SandboxFault) in
                .done(
                    try module.takeJSON(try module.callI32("fk_poll_request", [handle]), from: "fk_poll_request").map {
                        String(decoding: $0, as: UTF8.self)
                    })
            }
        }
    }

    public func respond(_ instance: UInt64, requestID: UInt64, resultJSON: String) throws(FusionHostError) {
        try failing { () throws(FusionHostError) in
            try self.instance(instance, "fk_respond").run("fk_respond", mutates: true) { (module, handle, _) throws(SandboxFault) in
                let status = try module.withText(Array(resultJSON.utf8)) { (json, length) throws(SandboxFault) in
                    try module.callI32("fk_respond", [handle, .i64(requestID), json, length])
                }
                return status == 0 ? .done(()) : .refused(status)
            }
        }
    }

    public func failRequest(_ instance: UInt64, requestID: UInt64, message: String) throws(FusionHostError) {
        try failing { () throws(FusionHostError) in
            try self.instance(instance, "fk_fail_request").run("fk_fail_request", mutates: true) {
                (module, handle, _) throws(SandboxFault) in
                let status = try module.withText(Array(message.utf8)) { (text, length) throws(SandboxFault) in
                    try module.callI32("fk_fail_request", [handle, .i64(requestID), text, length])
                }
                return status == 0 ? .done(()) : .refused(status)
            }
        }
    }

    // MARK: Time travel

    public func history(_ instance: UInt64) throws(FusionHostError) -> String {
        try failing { () throws(FusionHostError) in
            let found = try self.instance(instance, "fk_history")
            let text: String? = try found.run("fk_history") { (module, handle, offset) throws(SandboxFault) in
                .done(
                    try module.takeJSON(try module.callI32("fk_history", [handle]), from: "fk_history").map {
                        Self.shifted(String(decoding: $0, as: UTF8.self), by: offset, keys: ["version"])
                    })
            }
            guard let text else {
                throw Self.refused(
                    "fk_history", .invalidArgument,
                    "this \"\(found.feature)\" instance keeps no history; create it with the option {\"history\": N} to keep N versions")
            }
            return text
        }
    }

    public func checkpoint(_ instance: UInt64) throws(FusionHostError) -> String {
        throw .missingEntryPoint(path: plugin.path, symbol: "fk_checkpoint")
    }

    public func restartEffects(_ instance: UInt64) throws(FusionHostError) {
        throw .missingEntryPoint(path: plugin.path, symbol: "fk_restart_effects")
    }

    public func goto(_ instance: UInt64, version: UInt64) throws(FusionHostError) -> UInt64 {
        try failing { () throws(FusionHostError) in
            try self.instance(instance, "fk_goto").run("fk_goto", mutates: true) { (module, handle, offset) throws(SandboxFault) in
                // Versions from before a recovery are not kept: the module refuses 0 as not kept.
                let asked = version >= offset ? version - offset : 0
                let reached = UInt64(bitPattern: try module.callI64("fk_goto", [handle, .i64(asked)]))
                return reached == 0 ? .refused(nil) : .done(reached + offset)
            }
        }
    }

    /// Makes a failed instance go on from its last good state, at the same version, in a
    /// fresh instantiation of the module (`SandboxedInstance.recover`): what the bridge does
    /// after an input faulted, so that the session goes on without it.
    public func recover(_ instance: UInt64) throws(FusionHostError) {
        try failing { () throws(FusionHostError) in try self.instance(instance, "recover").recover() }
    }

    public func limit(_ id: Int32, _ newValue: Int64) throws(FusionHostError) -> Int64 {
        throw .missingEntryPoint(path: plugin.path, symbol: "fk_limit")
    }

    /// Bytes of linear memory an instance's module holds now (0 for an unknown handle).
    public func memoryBytes(of instance: UInt64) -> Int {
        lock.locked { instances[instance] }?.memoryBytes ?? 0
    }
}
