import CFusionKit
import FusionHost
import WasmKit

/// An instance of a feature of a sandboxed plugin: its own instantiation of the module, so
/// a fault in it fails this instance and nothing else.
///
/// Calls run one at a time under its lock, each with the call's fuel and the memory cap.
/// A fault marks the instance failed: later calls are refused with FK_ERR_INSTANCE_FAILED,
/// `state` gives the last good state (the host keeps the last one it read, and reads it
/// before an input when it has not), and `destroy` ends it. Callbacks (subscriptions, the
/// request handler) run after the lock is let go, as the header promises.
final class SandboxedInstance: @unchecked Sendable {
    // @unchecked: every var below is touched under `lock` (the notification fields
    // under `notifyLock`), and `module` only by the thread holding `lock`.
    let handle: UInt64
    let feature: String
    private let library: SandboxedLibrary
    private let lock = ThreadLock()
    private var module: ModuleInstance?
    private var moduleHandle: Int32
    /// The options it was created with: what `recover` creates its successor with.
    private let options: [UInt8]
    /// Versions the module's counter is behind the instance's: a recovered instance's new
    /// module counts from 0, and the host goes on from the version it had.
    private var versionOffset: UInt64 = 0
    /// How it failed (the fault's status and words); nil while it works.
    private var failure: (status: FusionStatus, message: String)?
    /// The last state read and its version; `stale` once a call may have changed it.
    private var lastState: [UInt8] = []
    private var lastVersion: UInt64 = 0
    private var stale = true
    private let onSystemClock: Bool
    private let ticker = RealTimeTicker()
    private var ticking = false

    private var subscriptions: [UInt64: (fk_change_fn, UnsafeRawPointer?)] = [:]
    private var nextSubscription: UInt64 = 0
    private var requestHandler: (fk_request_fn, UnsafeRawPointer?)?
    private var reportedVersion: UInt64 = 0

    private let notifyLock = ThreadLock()
    private var notifying = false
    private var notifyAgain = false

    init(handle: UInt64, feature: String, options: [UInt8], onSystemClock: Bool, library: SandboxedLibrary) throws(FusionHostError) {
        self.handle = handle
        self.feature = feature
        self.library = library
        self.onSystemClock = onSystemClock
        self.options = options
        let plugin = library.plugin
        var refusal: CallFailure?
        do throws(SandboxFault) {
            let module = try plugin.instantiate()
            let made = try module.withText(Array(feature.utf8)) { (name, nameLength) throws(SandboxFault) in
                try module.withText(options) { (json, length) throws(SandboxFault) in
                    try module.callI32(
                        "fk_create", [name, nameLength, options.isEmpty ? .i32(0) : json, options.isEmpty ? .i32(0) : length])
                }
            }
            if made <= 0 {
                refusal = try Self.refusal(module, function: "fk_create", returned: nil)
            } else {
                try Self.warm(module, feature: feature, options: options)
            }
            self.module = module
            moduleHandle = made
        } catch {
            throw .failed(
                CallFailure(function: "fk_create", status: error.status, statusName: error.statusName, message: error.description))
        }
        if let refusal { throw .failed(refusal) }
    }

    /// WasmKit translates a function the first time an instantiation calls it, so a fresh
    /// instance's first input would pay for translating the JSON parser and the state's
    /// writer (about a millisecond): paid here, at creation, on a second instance of the
    /// feature made in the same instantiation for it and destroyed after (its state read,
    /// a patch asked for, an input no feature has sent), so that nothing of it can touch
    /// the instance created, even in a plugin that takes any input. A plugin that refuses
    /// the second instance is simply not warmed.
    private static func warm(_ module: ModuleInstance, feature: String, options: [UInt8]) throws(SandboxFault) {
        let made = try module.withText(Array(feature.utf8)) { (name, nameLength) throws(SandboxFault) in
            try module.withText(options) { (json, length) throws(SandboxFault) in
                try module.callI32("fk_create", [name, nameLength, options.isEmpty ? .i32(0) : json, options.isEmpty ? .i32(0) : length])
            }
        }
        guard made > 0 else { return }
        let handle = Value.i32(UInt32(bitPattern: made))
        _ = try module.takeText(try module.callI32("fk_state", [handle]))
        _ = try module.takeText(try module.callI32("fk_state_patch", [handle, .i64(0)]))
        _ = try module.callI64("fk_version", [handle])
        _ = try module.callI64("fk_next_wake", [handle])
        _ = try module.withText(Array("{\"fusionkit.warm\":{}}".utf8)) { (json, length) throws(SandboxFault) in
            try module.callI32("fk_send", [handle, json, length])
        }
        _ = try module.call("fk_destroy", [handle])
    }

    /// The module's refusal as the host's failure. The status is what the export returned
    /// when it returns one (`returned`), else the module's `fk_last_error_status`; either way
    /// it must be a library's refusal: not FK_OK, and none of the statuses the host keeps
    /// for the sandbox's own faults (a module saying "trapped" has not, and one saying
    /// "OK" for a refusal is not believed), or the module broke the contract.
    private static func refusal(_ module: ModuleInstance, function: String, returned: Int32?) throws(SandboxFault) -> CallFailure {
        let status: Int32
        if let returned { status = returned } else { status = try module.callI32("fk_last_error_status", []) }
        let reserved: Set<FusionStatus> = [.ok, .pluginTrapped, .pluginLimit, .instanceFailed]
        if status < 0 || reserved.contains(FusionStatus(rawValue: status)) {
            throw .brokenContract(
                "\(function) was refused with the status \(SandboxedLibrary.statusName(status)) (\(status)), which a plugin may not give")
        }
        let message = try module.takeText(try module.callI32("fk_last_error_message", [])) ?? []
        return CallFailure(
            function: function, status: FusionStatus(rawValue: status), statusName: SandboxedLibrary.statusName(status),
            message: String(decoding: message, as: UTF8.self))
    }

    // MARK: Calls

    /// What a call of the module gives back: its result, or the module's refusal with the
    /// status the export returned (nil: an export that returns none, such as a pointer).
    enum Outcome<R> {
        case done(R)
        case refused(Int32?)
    }

    /// Runs `body` on the module under the lock. A refusal (`.refused`) throws the module's
    /// words; a fault fails the instance and throws its status. `mutates`: the call may
    /// change the state, so subscribers hear of it, a request handler is given what waits,
    /// and the system clock's timer is set again.
    func run<R>(
        _ function: String, mutates: Bool = false, _ body: (ModuleInstance, Value, UInt64) throws(SandboxFault) -> Outcome<R>
    ) throws(FusionHostError) -> R {
        let result: Result<R, FusionHostError> = lock.locked {
            guard let module else {
                return .failure(
                    .failed(
                        CallFailure(
                            function: function, status: .invalidHandle, statusName: "FK_ERR_INVALID_HANDLE",
                            message: "the instance was destroyed")))
            }
            if let failure {
                return .failure(
                    .failed(
                        CallFailure(
                            function: function, status: .instanceFailed, statusName: "FK_ERR_INSTANCE_FAILED",
                            message: "this \"\(feature)\" instance failed earlier and takes no more calls: \(failure.message)")))
            }
            do throws(SandboxFault) {
                if mutates && stale { try refreshState(module) }
                let outcome = try body(module, .i32(UInt32(bitPattern: moduleHandle)), versionOffset)
                if mutates { stale = true }
                switch outcome {
                case .done(let value): return .success(value)
                case .refused(let status): return .failure(.failed(try Self.refusal(module, function: function, returned: status)))
                }
            } catch {
                failure = (error.status, error.description)
                library.recordFault(error)
                return .failure(
                    .failed(CallFailure(function: function, status: error.status, statusName: error.statusName, message: error.description))
                )
            }
        }
        if mutates { afterChange() }
        return try result.get()
    }

    private func refreshState(_ module: ModuleInstance) throws(SandboxFault) {
        let moduleHandle = Value.i32(UInt32(bitPattern: self.moduleHandle))
        guard let json = try module.takeJSON(try module.callI32("fk_state", [moduleHandle]), from: "fk_state") else {
            throw .brokenContract("fk_state gave nothing for a live instance")
        }
        lastState = json
        lastVersion = UInt64(bitPattern: try module.callI64("fk_version", [moduleHandle])) + versionOffset
        stale = false
    }

    /// The state and its version; a failed instance's last good one.
    func state() throws(FusionHostError) -> (json: String, version: UInt64) {
        let outcome: Result<(String, UInt64), FusionHostError> = lock.locked {
            guard let module else {
                return .failure(
                    .failed(
                        CallFailure(
                            function: "fk_state", status: .invalidHandle, statusName: "FK_ERR_INVALID_HANDLE",
                            message: "the instance was destroyed")))
            }
            if failure == nil && stale {
                do throws(SandboxFault) { try refreshState(module) } catch {
                    failure = (error.status, error.description)
                    library.recordFault(error)
                    return .failure(
                        .failed(
                            CallFailure(
                                function: "fk_state", status: error.status, statusName: error.statusName, message: error.description)))
                }
            }
            return .success((String(decoding: lastState, as: UTF8.self), lastVersion))
        }
        return try outcome.get()
    }

    /// Makes a failed instance go on from its last good state: a fresh instantiation of the
    /// module, created with the instance's options and that state, at the same version
    /// (what the faulting call would have changed never happened). Timed effects and host
    /// requests under way when it failed, and the versions kept for time travel, are not
    /// carried over. Does nothing to an instance that has not failed.
    func recover() throws(FusionHostError) {
        let outcome: Result<Void, FusionHostError> = lock.locked {
            guard module != nil else {
                return .failure(
                    .failed(
                        CallFailure(
                            function: "recover", status: .invalidHandle, statusName: "FK_ERR_INVALID_HANDLE",
                            message: "the instance was destroyed")))
            }
            guard failure != nil else { return .success(()) }
            var members = (try? JSONParser.parse(String(decoding: options, as: UTF8.self)))?.members ?? []
            members.removeAll { ["state", "stateVersion", "checkpoint"].contains($0.key) }
            guard let state = try? JSONParser.parse(String(decoding: lastState, as: UTF8.self)) else {
                return .failure(
                    .failed(
                        CallFailure(
                            function: "recover", status: .instanceFailed, statusName: "FK_ERR_INSTANCE_FAILED",
                            message: "no good state was read before it failed")))
            }
            members.append(JSONMember("state", state))
            let text = Array(JSONValue.object(members).jsonText.utf8)
            do throws(SandboxFault) {
                let fresh = try library.plugin.instantiate()
                let made = try fresh.withText(Array(feature.utf8)) { (name, nameLength) throws(SandboxFault) in
                    try fresh.withText(text) { (json, length) throws(SandboxFault) in
                        try fresh.callI32("fk_create", [name, nameLength, json, length])
                    }
                }
                guard made > 0 else { return .failure(.failed(try Self.refusal(fresh, function: "recover", returned: nil))) }
                module = fresh
                moduleHandle = made
                versionOffset = lastVersion
                reportedVersion = lastVersion
                failure = nil
                stale = true
                return .success(())
            } catch {
                return .failure(
                    .failed(
                        CallFailure(function: "recover", status: error.status, statusName: error.statusName, message: error.description)))
            }
        }
        try outcome.get()
        afterChange()
    }

    /// How the instance failed; nil while it works.
    var failed: (status: FusionStatus, message: String)? { lock.locked { failure } }

    /// Bytes of linear memory its module holds now.
    var memoryBytes: Int { lock.locked { module?.memoryBytes ?? 0 } }

    func destroy() {
        let had = lock.locked { () -> Bool in
            defer { module = nil; subscriptions = [:]; requestHandler = nil }
            return module != nil
        }
        if had { ticker.stop() }
    }

    // MARK: Callbacks

    func subscribe(_ callback: fk_change_fn, _ userData: UnsafeRawPointer?) -> UInt64 {
        lock.locked {
            nextSubscription += 1
            subscriptions[nextSubscription] = (callback, userData)
            return nextSubscription
        }
    }

    func unsubscribe(_ id: UInt64) -> Bool {
        lock.locked { subscriptions.removeValue(forKey: id) != nil }
    }

    func setRequestHandler(_ handler: fk_request_fn?, _ userData: UnsafeRawPointer?) {
        lock.locked { requestHandler = handler.map { ($0, userData) } }
        afterChange()
    }

    /// After a call that may have changed the state: tells subscribers the new version and
    /// the request handler what waits, one notification at a time per instance (a callback
    /// that sends again is told after it returns), then sets the system clock's timer.
    private func afterChange() {
        let first = notifyLock.locked { () -> Bool in
            if notifying { notifyAgain = true; return false }
            notifying = true
            return true
        }
        guard first else { return }
        while true {
            deliver()
            let again = notifyLock.locked { () -> Bool in
                if notifyAgain { notifyAgain = false; return true }
                notifying = false
                return false
            }
            if !again { break }
        }
        scheduleClock()
    }

    private func deliver() {
        typealias Change = (
            callbacks: [(fk_change_fn, UnsafeRawPointer?)], version: UInt64?, events: [[UInt8]],
            handler: (fk_request_fn, UnsafeRawPointer?)?
        )
        let change: Change = lock.locked {
            guard let module, failure == nil else { return ([], nil, [], nil) }
            let handle = Value.i32(UInt32(bitPattern: moduleHandle))
            var version: UInt64?
            var events: [[UInt8]] = []
            do throws(SandboxFault) {
                if !subscriptions.isEmpty {
                    let now = UInt64(bitPattern: try module.callI64("fk_version", [handle])) + versionOffset
                    if now != reportedVersion { reportedVersion = now; version = now }
                }
                if requestHandler != nil {
                    while events.count < 1000,
                        let event = try module.takeJSON(try module.callI32("fk_poll_request", [handle]), from: "fk_poll_request")
                    {
                        events.append(event)
                    }
                }
            } catch {
                failure = (error.status, error.description)
                library.recordFault(error)
            }
            return (Array(subscriptions.values), version, events, requestHandler)
        }
        if let handler = change.handler {
            for event in change.events {
                var text = event
                text.append(0)
                text.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        handler.0(UnsafeMutableRawPointer(mutating: handler.1), handle, $0.baseAddress, event.count)
                    }
                }
            }
        }
        if let version = change.version {
            for (callback, userData) in change.callbacks { callback(UnsafeMutableRawPointer(mutating: userData), handle, version) }
        }
    }

    /// On the system clock, the module is told how much time passed (`fk_elapse`) every
    /// 10 ms while a timed effect waits; the timer stops when none does.
    private func scheduleClock() {
        guard onSystemClock else { return }
        let start = lock.locked { () -> Bool in
            guard let module, failure == nil, !ticking else { return false }
            let wake = try? module.callI64("fk_next_wake", [.i32(UInt32(bitPattern: moduleHandle))])
            guard let wake, wake >= 0 else { return false }
            ticking = true
            return true
        }
        guard start else { return }
        ticker.start { [weak self] elapsed in self?.tick(elapsed) }
    }

    private func tick(_ elapsed: UInt64) {
        let stop = lock.locked { () -> Bool in
            guard let module, failure == nil else { ticking = false; return true }
            let handle = Value.i32(UInt32(bitPattern: moduleHandle))
            do throws(SandboxFault) {
                _ = try module.callI32("fk_elapse", [handle, .i64(elapsed)])
                stale = true
                if try module.callI64("fk_next_wake", [handle]) < 0 { ticking = false; return true }
                return false
            } catch {
                failure = (error.status, error.description)
                library.recordFault(error)
                ticking = false
                return true
            }
        }
        if stop { ticker.stop() }
        afterChange()
    }
}
