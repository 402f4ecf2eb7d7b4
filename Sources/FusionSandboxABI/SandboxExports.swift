import CFusionKit
import FusionHost
import FusionSandbox

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// libFusionSandbox.so: include/fusionkit.h's functions over the one module chosen with
// fk_sandbox_open (include/fusionkit_sandbox.h), answered by FusionSandbox's
// SandboxedLibrary, the backend `fusion` drives .wasm plugins through.

/// The module this load of the library runs, once opened.
private let opened = Opened()

private final class Opened: @unchecked Sendable {
    // @unchecked: every field is touched under `lock`.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var library: SandboxedLibrary?
    private var path: String?
    /// Each thread's last message, NUL-terminated, kept until its next failing call.
    private var messages: [UInt: UnsafeMutablePointer<CChar>] = [:]

    init() { pthread_mutex_init(lock, nil) }

    func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }

    func open(_ path: String, limits: SandboxLimits) -> FusionHostError? {
        locked {
            if let current = self.path {
                if current == path { return nil }
                return Self.refusal(.invalidArgument, "this process already runs \(current); libFusionSandbox runs one module per load")
            }
            do throws(FusionHostError) {
                library = try SandboxedLibrary(path: path, limits: limits)
                self.path = path
                return nil
            } catch {
                if case .failed = error { return error }
                return Self.refusal(.invalidArgument, error.description)
            }
        }
    }

    /// The open library, opening $FUSIONKIT_SANDBOX_MODULE on first use if set.
    func current() throws(FusionHostError) -> SandboxedLibrary {
        if let library = locked({ library }) { return library }
        guard let variable = getenv("FUSIONKIT_SANDBOX_MODULE").map({ String(cString: $0) }), !variable.isEmpty else {
            throw Self.refusal(.invalidArgument, "no module is open: call fk_sandbox_open() first, or set FUSIONKIT_SANDBOX_MODULE")
        }
        if let failure = open(variable, limits: SandboxLimits()) { throw failure }
        guard let library = locked({ library }) else { throw Self.refusal(.internalError, "the module did not open") }
        return library
    }

    static func refusal(_ status: FusionStatus, _ message: String) -> FusionHostError {
        .failed(CallFailure(function: "", status: status, statusName: SandboxedLibrary.statusName(status.rawValue), message: message))
    }

    static var thread: UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self())))) }

    func remember(_ message: String) {
        let copy = strdup(message)
        let old = locked { () -> UnsafeMutablePointer<CChar>? in
            defer { messages[Self.thread] = copy }
            return messages[Self.thread]
        }
        free(old)
    }

    func forget() {
        let old = locked { messages.removeValue(forKey: Self.thread) }
        free(old)
    }

    var message: UnsafePointer<CChar>? {
        locked { messages[Self.thread].map { UnsafePointer($0) } } ?? UnsafePointer(libraryVersions.text(""))
    }
}

/// Runs a call: FK_OK, or the failure's status with its message kept for
/// fk_last_error_message().
private func exported(_ body: (SandboxedLibrary) throws(FusionHostError) -> Void) -> fk_status {
    do throws(FusionHostError) {
        try body(try opened.current())
        opened.forget()
        return FK_OK
    } catch {
        switch error {
        case .failed(let failure):
            opened.remember(failure.message)
            return failure.status.rawValue
        case .missingEntryPoint(_, let symbol):
            opened.remember("a sandboxed plugin has no \(symbol)")
            return FK_ERR_INVALID_ARGUMENT
        default:
            opened.remember(error.description)
            return FK_ERR_INTERNAL
        }
    }
}

private func text(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ name: String) throws(FusionHostError) -> String {
    guard let pointer else { throw Opened.refusal(.nullArgument, "\(name) is NULL") }
    let count = length == FK_NUL_TERMINATED ? strlen(pointer) : length
    guard count >= 0 else {
        throw Opened.refusal(.invalidArgument, "\(name)'s length is too large; pass the length in bytes or FK_NUL_TERMINATED")
    }
    let bytes = UnsafeRawBufferPointer(start: pointer, count: count).bindMemory(to: UInt8.self)
    guard let string = String(validating: bytes, as: UTF8.self) else { throw Opened.refusal(.invalidUTF8, "\(name) is not valid UTF-8") }
    return string
}

private func optionalText(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ name: String) throws(FusionHostError) -> String? {
    guard pointer != nil, length != 0 else { return nil }
    return try text(pointer, length, name)
}

/// Hands text over as owned (malloc'd, NUL-terminated): the caller frees it with fk_free.
private func give(_ string: String, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?)
    throws(FusionHostError)
{
    guard let out else { throw Opened.refusal(.nullArgument, "out_json is NULL") }
    out.pointee = strdup(string)
    length?.pointee = string.utf8.count
}

@_cdecl("fk_sandbox_open")
public func fk_sandbox_open(_ path: UnsafePointer<CChar>?, _ pathLength: Int, _ timeLimit: UInt64, _ memoryLimit: UInt64) -> fk_status {
    do throws(FusionHostError) {
        let file = try text(path, pathLength, "path")
        guard memoryLimit == 0 || SandboxLimits.memoryLimits.contains(Int(clamping: memoryLimit)) else {
            throw Opened.refusal(.invalidArgument, "memory_limit_bytes \(memoryLimit) is out of range: 0 (64 MiB) or 65536 to 2^40")
        }
        let longest = UInt64(SandboxLimits.longestTimeLimit.components.seconds) * 1_000_000_000
        guard timeLimit <= longest else {
            throw Opened.refusal(.invalidArgument, "time_limit_ns \(timeLimit) is out of range: 0 (1 s) or up to \(longest) (24 hours)")
        }
        let limits = SandboxLimits(
            timeLimit: timeLimit == 0 ? SandboxLimits.defaultTimeLimit : .nanoseconds(Int64(timeLimit)),
            memoryLimit: memoryLimit == 0 ? SandboxLimits.defaultMemoryLimit : Int(memoryLimit))
        if let failure = opened.open(file, limits: limits) { throw failure }
        opened.forget()
        return FK_OK
    } catch {
        if case .failed(let failure) = error { opened.remember(failure.message); return failure.status.rawValue }
        opened.remember(error.description)
        return FK_ERR_INTERNAL
    }
}

@_cdecl("fk_abi_version")
public func fk_abi_version() -> UInt32 { UInt32(FK_ABI_VERSION) }

@_cdecl("fk_library_version")
public func fk_library_version() -> UnsafePointer<CChar>? {
    guard let library = try? opened.current() else { return UnsafePointer(libraryVersions.text("")) }
    return UnsafePointer(libraryVersions.text(library.libraryVersion()))
}

/// Borrowed strings the library hands out and keeps (versions, status names): one copy each.
private let libraryVersions = KeptStrings()

private final class KeptStrings: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var kept: [String: UnsafeMutablePointer<CChar>] = [:]
    init() { pthread_mutex_init(lock, nil) }

    func text(_ string: String) -> UnsafeMutablePointer<CChar> {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        if let known = kept[string] { return known }
        let copy = strdup(string)!
        kept[string] = copy
        return copy
    }
}

@_cdecl("fk_status_name")
public func fk_status_name(_ status: fk_status) -> UnsafePointer<CChar>? {
    UnsafePointer(libraryVersions.text(SandboxedLibrary.statusName(status)))
}

@_cdecl("fk_last_error_message")
public func fk_last_error_message() -> UnsafePointer<CChar>? { opened.message }

@_cdecl("fk_free")
public func fk_free(_ memory: UnsafeMutableRawPointer?) { free(memory) }

@_cdecl("fk_manifest")
public func fk_manifest(_ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?)
    -> fk_status
{
    exported { (library) throws(FusionHostError) in try give(try library.manifest(), outJSON, outLength) }
}

@_cdecl("fk_create")
public func fk_create(
    _ feature: UnsafePointer<CChar>?, _ featureLength: Int, _ stateJSON: UnsafePointer<CChar>?, _ stateLength: Int,
    _ outInstance: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    exported { (library) throws(FusionHostError) in
        let name = try text(feature, featureLength, "feature")
        guard let outInstance else { throw Opened.refusal(.nullArgument, "out_instance is NULL") }
        outInstance.pointee = try library.create(feature: name, stateJSON: try optionalText(stateJSON, stateLength, "state_json"))
    }
}

@_cdecl("fk_create_with_options")
public func fk_create_with_options(
    _ feature: UnsafePointer<CChar>?, _ featureLength: Int, _ optionsJSON: UnsafePointer<CChar>?, _ optionsLength: Int,
    _ outInstance: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    exported { (library) throws(FusionHostError) in
        let name = try text(feature, featureLength, "feature")
        guard let outInstance else { throw Opened.refusal(.nullArgument, "out_instance is NULL") }
        outInstance.pointee = try library.createWithOptions(
            feature: name, optionsJSON: try optionalText(optionsJSON, optionsLength, "options_json"))
    }
}

@_cdecl("fk_destroy")
public func fk_destroy(_ instance: UInt64) -> fk_status {
    exported { (library) throws(FusionHostError) in try library.destroy(instance) }
}

@_cdecl("fk_send")
public func fk_send(_ instance: UInt64, _ inputJSON: UnsafePointer<CChar>?, _ inputLength: Int) -> fk_status {
    exported { (library) throws(FusionHostError) in try library.send(instance, try text(inputJSON, inputLength, "input_json")) }
}

@_cdecl("fk_state")
public func fk_state(
    _ instance: UInt64, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
    _ outVersion: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    exported { (library) throws(FusionHostError) in
        guard outJSON != nil else { throw Opened.refusal(.nullArgument, "out_json is NULL") }
        let (json, version) = try library.state(instance)
        try give(json, outJSON, outLength)
        outVersion?.pointee = version
    }
}

@_cdecl("fk_state_patch")
public func fk_state_patch(
    _ instance: UInt64, _ since: UInt64, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ outLength: UnsafeMutablePointer<Int>?, _ outVersion: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    exported { (library) throws(FusionHostError) in
        guard outJSON != nil else { throw Opened.refusal(.nullArgument, "out_json is NULL") }
        let (json, version) = try library.statePatch(instance, since: since)
        try give(json, outJSON, outLength)
        outVersion?.pointee = version
    }
}

@_cdecl("fk_version")
public func fk_version(_ instance: UInt64, _ outVersion: UnsafeMutablePointer<UInt64>?) -> fk_status {
    exported { (library) throws(FusionHostError) in
        guard let outVersion else { throw Opened.refusal(.nullArgument, "out_version is NULL") }
        outVersion.pointee = try library.version(instance)
    }
}

@_cdecl("fk_subscribe")
public func fk_subscribe(
    _ instance: UInt64, _ callback: fk_change_fn?, _ userData: UnsafeMutableRawPointer?, _ outSubscription: UnsafeMutablePointer<UInt64>?
) -> fk_status {
    exported { (library) throws(FusionHostError) in
        guard let outSubscription else { throw Opened.refusal(.nullArgument, "out_subscription is NULL") }
        outSubscription.pointee = try library.subscribe(instance, callback, UnsafeRawPointer(userData))
    }
}

@_cdecl("fk_unsubscribe")
public func fk_unsubscribe(_ instance: UInt64, _ subscription: UInt64) -> fk_status {
    exported { (library) throws(FusionHostError) in try library.unsubscribe(instance, subscription) }
}

@_cdecl("fk_advance_clock")
public func fk_advance_clock(_ instance: UInt64, _ nanoseconds: UInt64) -> fk_status {
    exported { (library) throws(FusionHostError) in try library.advanceClock(instance, nanoseconds: nanoseconds) }
}

@_cdecl("fk_pending")
public func fk_pending(_ instance: UInt64, _ outEffects: UnsafeMutablePointer<UInt64>?, _ outRequests: UnsafeMutablePointer<UInt64>?)
    -> fk_status
{
    exported { (library) throws(FusionHostError) in
        let (effects, requests) = try library.pending(instance)
        outEffects?.pointee = effects
        outRequests?.pointee = requests
    }
}

@_cdecl("fk_next_wake")
public func fk_next_wake(_ instance: UInt64, _ outNanoseconds: UnsafeMutablePointer<UInt64>?) -> fk_status {
    exported { (library) throws(FusionHostError) in
        guard let outNanoseconds else { throw Opened.refusal(.nullArgument, "out_nanoseconds is NULL") }
        outNanoseconds.pointee = try library.nextWake(instance)
    }
}

@_cdecl("fk_set_request_handler")
public func fk_set_request_handler(_ instance: UInt64, _ handler: fk_request_fn?, _ userData: UnsafeMutableRawPointer?) -> fk_status {
    exported { (library) throws(FusionHostError) in try library.setRequestHandler(instance, handler, UnsafeRawPointer(userData)) }
}

@_cdecl("fk_poll_request")
public func fk_poll_request(
    _ instance: UInt64, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> fk_status {
    exported { (library) throws(FusionHostError) in
        guard let outJSON else { throw Opened.refusal(.nullArgument, "out_json is NULL") }
        if let event = try library.pollRequest(instance) {
            try give(event, outJSON, outLength)
        } else {
            outJSON.pointee = nil
            outLength?.pointee = 0
        }
    }
}

@_cdecl("fk_respond")
public func fk_respond(_ instance: UInt64, _ requestID: UInt64, _ resultJSON: UnsafePointer<CChar>?, _ resultLength: Int) -> fk_status {
    exported { (library) throws(FusionHostError) in
        try library.respond(instance, requestID: requestID, resultJSON: try text(resultJSON, resultLength, "result_json"))
    }
}

@_cdecl("fk_fail_request")
public func fk_fail_request(_ instance: UInt64, _ requestID: UInt64, _ message: UnsafePointer<CChar>?, _ messageLength: Int) -> fk_status {
    exported { (library) throws(FusionHostError) in
        try library.failRequest(instance, requestID: requestID, message: try text(message, messageLength, "message"))
    }
}

@_cdecl("fk_history")
public func fk_history(
    _ instance: UInt64, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> fk_status {
    exported { (library) throws(FusionHostError) in
        guard outJSON != nil else { throw Opened.refusal(.nullArgument, "out_json is NULL") }
        try give(try library.history(instance), outJSON, outLength)
    }
}

@_cdecl("fk_goto")
public func fk_goto(_ instance: UInt64, _ version: UInt64, _ outVersion: UnsafeMutablePointer<UInt64>?) -> fk_status {
    exported { (library) throws(FusionHostError) in
        let reached = try library.goto(instance, version: version)
        outVersion?.pointee = reached
    }
}
