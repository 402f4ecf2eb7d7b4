/// The module's exports (docs/wasm.md): include/fusionkit.h's core calls, for a host that
/// is a page or a runtime. Text crosses as UTF-8 in the module's memory: the host asks
/// `fk_alloc` for room, writes, and passes pointer and length; what the module returns
/// (a state, an error message) is a NUL-terminated string the host reads and then gives
/// back with `fk_free`. Handles are positive; 0 is no instance.

/// The module's instances and the last error, for the one thread a module has.
final class ModuleState: @unchecked Sendable {
    // @unchecked: a WebAssembly module has one thread; its host calls in one call at a time.
    var instances: [Int32: WasmInstanceBase] = [:]
    var nextHandle: Int32 = 0
    var lastError: FusionError?
    /// The library, from its registration (`fusionkit_wasm_library`).
    lazy var library: WasmLibrary = registeredLibrary()
    var features: [WasmFeatureBase] { library.features }

    static let shared = ModuleState()
}

/// The library: declared here without a body, defined by the library's registration (as
/// the native `fusionkit_library` is), bound when the module is linked.
@_silgen_name("fusionkit_wasm_library")
func registeredLibrary() -> WasmLibrary

func failed(_ error: FusionError) -> Int32 {
    ModuleState.shared.lastError = error
    return error.status.rawValue
}

func bytes(_ pointer: UnsafeRawPointer?, _ length: Int32) -> [UInt8] {
    guard let pointer, length > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: Int(length)))
}

/// A NUL-terminated copy the host frees with `fk_free`.
func terminated(_ text: [UInt8]) -> UnsafeMutableRawPointer {
    let out = UnsafeMutableRawPointer.allocate(byteCount: text.count + 1, alignment: 1)
    text.withUnsafeBytes { out.copyMemory(from: $0.baseAddress!, byteCount: text.count) }
    out.storeBytes(of: 0, toByteOffset: text.count, as: UInt8.self)
    return out
}

@_expose(wasm, "fk_alloc")
@_cdecl("fk_alloc")
public func fk_alloc(_ length: Int32) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer.allocate(byteCount: Int(max(1, length)), alignment: 8)
}

@_expose(wasm, "fk_free")
@_cdecl("fk_free")
public func fk_free(_ pointer: UnsafeMutableRawPointer?) {
    pointer?.deallocate()
}

/// The features' names, as a JSON array.
@_expose(wasm, "fk_feature_names")
@_cdecl("fk_feature_names")
public func fk_feature_names() -> UnsafeMutableRawPointer {
    var writer = JSONWriter()
    writer.write(.array(ModuleState.shared.features.map { .string($0.name) }))
    return terminated(writer.bytes)
}

/// The library's manifest (JSON, as the native `fk_manifest` writes it; free it with
/// `fk_free`).
@_expose(wasm, "fk_manifest")
@_cdecl("fk_manifest")
public func fk_manifest() -> UnsafeMutableRawPointer {
    var writer = JSONWriter()
    writer.write(ModuleState.shared.library.manifest)
    return terminated(writer.bytes)
}

/// A new instance of the feature `name`, with creation `options` (a JSON object, or
/// length 0 for none); 0 on error (`fk_last_error_message`).
@_expose(wasm, "fk_create")
@_cdecl("fk_create")
public func fk_create(_ name: UnsafeRawPointer?, _ nameLength: Int32, _ options: UnsafeRawPointer?, _ optionsLength: Int32) -> Int32 {
    let module = ModuleState.shared
    let wanted = String(decoding: bytes(name, nameLength), as: UTF8.self)
    guard let feature = module.features.first(where: { $0.name == wanted }) else {
        let known = module.features.map { $0.name }.joined(separator: ", ")
        _ = failed(FusionError(.unknownFeature, "no feature \"\(wanted)\" in this library; its features: \(known)"))
        return 0
    }
    do throws(FusionError) {
        var parsed = InstanceOptions()
        let text = bytes(options, optionsLength)
        if !text.isEmpty {
            let json: JSONValue
            do {
                json = try JSONParser.parse(text)
            } catch {
                throw FusionError(.malformedJSON, "the options are not JSON: \(error.description)")
            }
            parsed = try InstanceOptions(json: json)
        }
        let instance = try feature.makeInstance(options: parsed)
        module.nextHandle += 1
        module.instances[module.nextHandle] = instance
        return module.nextHandle
    } catch {
        _ = failed(error)
        return 0
    }
}

@_expose(wasm, "fk_destroy")
@_cdecl("fk_destroy")
public func fk_destroy(_ handle: Int32) {
    ModuleState.shared.instances[handle] = nil
}

func instance(_ handle: Int32) throws(FusionError) -> WasmInstanceBase {
    guard let found = ModuleState.shared.instances[handle] else {
        throw FusionError(.invalidHandle, "no instance has handle \(handle)")
    }
    return found
}

/// Applies an input (JSON); FK_OK (0) or the error's status.
@_expose(wasm, "fk_send")
@_cdecl("fk_send")
public func fk_send(_ handle: Int32, _ json: UnsafeRawPointer?, _ length: Int32) -> Int32 {
    do throws(FusionError) {
        try instance(handle).send(bytes(json, length))
        return 0
    } catch {
        return failed(error)
    }
}

/// The state's JSON (free it with `fk_free`); null for an unknown handle.
@_expose(wasm, "fk_state")
@_cdecl("fk_state")
public func fk_state(_ handle: Int32) -> UnsafeMutableRawPointer? {
    do throws(FusionError) {
        return terminated(try instance(handle).stateJSON())
    } catch {
        _ = failed(error)
        return nil
    }
}

/// The patch that turns the state at `version` into the state now, as the native
/// `fk_state_patch` answers (`{"from":V,"to":N,"patch":[…]}`, or the whole state as
/// `{"from":null,"to":N,"state":{…}}`; free it with `fk_free`); null for an unknown handle.
@_expose(wasm, "fk_state_patch")
@_cdecl("fk_state_patch")
public func fk_state_patch(_ handle: Int32, _ version: UInt64) -> UnsafeMutableRawPointer? {
    do throws(FusionError) {
        return terminated(try instance(handle).statePatch(since: version))
    } catch {
        _ = failed(error)
        return nil
    }
}

/// The state's version; 0 for an unknown handle.
@_expose(wasm, "fk_version")
@_cdecl("fk_version")
public func fk_version(_ handle: Int32) -> UInt64 {
    (try? instance(handle).version) ?? 0
}

/// Moves a manual clock (option "clock": "manual") `nanoseconds` forward and fires what
/// is due. An instance on the system clock refuses, with the native library's message.
@_expose(wasm, "fk_advance_clock")
@_cdecl("fk_advance_clock")
public func fk_advance_clock(_ handle: Int32, _ nanoseconds: UInt64) -> Int32 {
    do throws(FusionError) {
        let found = try instance(handle)
        guard !found.onSystemClock else {
            throw FusionError(
                .invalidArgument,
                "this \"\(found.featureName)\" instance runs on the system clock; create it with {\"clock\":\"manual\"} to advance time")
        }
        found.advanceClock(by: nanoseconds)
        return 0
    } catch {
        return failed(error)
    }
}

/// Tells an instance on the system clock that `nanoseconds` of the host's time have
/// passed, and fires what is due: a module has no clock of its own, so its host's timer
/// (after `fk_next_wake`) is its system clock. A manual clock refuses: only
/// `fk_advance_clock` moves it.
@_expose(wasm, "fk_elapse")
@_cdecl("fk_elapse")
public func fk_elapse(_ handle: Int32, _ nanoseconds: UInt64) -> Int32 {
    do throws(FusionError) {
        let found = try instance(handle)
        guard found.onSystemClock else {
            throw FusionError(.invalidArgument, "this \"\(found.featureName)\" instance runs on a manual clock: fk_advance_clock moves it")
        }
        found.advanceClock(by: nanoseconds)
        return 0
    } catch {
        return failed(error)
    }
}

/// Nanoseconds until the next timed effect fires; -1 when none waits.
@_expose(wasm, "fk_next_wake")
@_cdecl("fk_next_wake")
public func fk_next_wake(_ handle: Int32) -> Int64 {
    guard let wake = try? instance(handle).nextWake else { return -1 }
    return Int64(clamping: wake)
}

/// Timed effects waiting; -1 for an unknown handle.
@_expose(wasm, "fk_pending_effects")
@_cdecl("fk_pending_effects")
public func fk_pending_effects(_ handle: Int32) -> Int32 {
    guard let found = try? instance(handle) else { return -1 }
    return Int32(found.pendingEffects)
}

/// Host requests waiting for an answer; -1 for an unknown handle.
@_expose(wasm, "fk_pending_requests")
@_cdecl("fk_pending_requests")
public func fk_pending_requests(_ handle: Int32) -> Int32 {
    guard let found = try? instance(handle) else { return -1 }
    return Int32(found.openRequests)
}

/// The next host request or cancellation of an instance in mode "host", as the native
/// fk_poll_request's JSON (`{"event":"request","id":1,"kind":…,"payload":…}` or
/// `{"event":"cancel","id":1}`; free it with `fk_free`); null when none waits.
@_expose(wasm, "fk_poll_request")
@_cdecl("fk_poll_request")
public func fk_poll_request(_ handle: Int32) -> UnsafeMutableRawPointer? {
    do throws(FusionError) {
        guard let event = try instance(handle).pollRequest() else { return nil }
        return terminated(event)
    } catch {
        _ = failed(error)
        return nil
    }
}

/// Answers open request `id` with a result (JSON); FK_OK or the error's status
/// (FK_ERR_INVALID_RESPONSE when it does not fit: the request stays open).
@_expose(wasm, "fk_respond")
@_cdecl("fk_respond")
public func fk_respond(_ handle: Int32, _ id: UInt64, _ json: UnsafeRawPointer?, _ length: Int32) -> Int32 {
    do throws(FusionError) {
        let found = try instance(handle)
        let result: JSONValue
        do {
            result = try JSONParser.parse(bytes(json, length))
        } catch {
            throw FusionError(.malformedJSON, "the response is not JSON: \(error.description)")
        }
        try found.respond(id, with: result)
        return 0
    } catch {
        return failed(error)
    }
}

/// Answers open request `id` with an error: the host's words (UTF-8).
@_expose(wasm, "fk_fail_request")
@_cdecl("fk_fail_request")
public func fk_fail_request(_ handle: Int32, _ id: UInt64, _ message: UnsafeRawPointer?, _ length: Int32) -> Int32 {
    do throws(FusionError) {
        try instance(handle).fail(id, message: String(decoding: bytes(message, length), as: UTF8.self))
        return 0
    } catch {
        return failed(error)
    }
}

/// The last error's message (free it with `fk_free`), empty when there was none.
@_expose(wasm, "fk_last_error_message")
@_cdecl("fk_last_error_message")
public func fk_last_error_message() -> UnsafeMutableRawPointer {
    terminated(Array((ModuleState.shared.lastError?.message ?? "").utf8))
}

/// Returns to a kept version's state (option "history"), as a new version; the version
/// reached, or 0 on error.
@_expose(wasm, "fk_goto")
@_cdecl("fk_goto")
public func fk_goto(_ handle: Int32, _ version: UInt64) -> UInt64 {
    do throws(FusionError) {
        return try instance(handle).goto(version: version)
    } catch {
        _ = failed(error)
        return 0
    }
}

/// The versions kept and what made each (fk_history's JSON; free it with `fk_free`);
/// null when none are kept.
@_expose(wasm, "fk_history")
@_cdecl("fk_history")
public func fk_history(_ handle: Int32) -> UnsafeMutableRawPointer? {
    guard let json = try? instance(handle).historyJSON else { return nil }
    var writer = JSONWriter()
    writer.write(json)
    return terminated(writer.bytes)
}

/// The last error's status code (0 when there was none).
@_expose(wasm, "fk_last_error_status")
@_cdecl("fk_last_error_status")
public func fk_last_error_status() -> Int32 {
    ModuleState.shared.lastError?.status.rawValue ?? 0
}

/// A status code's name, "FK_ERR_UNKNOWN_INPUT" (free it with `fk_free`).
@_expose(wasm, "fk_status_name")
@_cdecl("fk_status_name")
public func fk_status_name(_ code: Int32) -> UnsafeMutableRawPointer {
    terminated(Array((FusionStatus(rawValue: code)?.symbol ?? "FK_ERR_UNKNOWN").utf8))
}
