import CFusionKit

/// A native library's backend: one Swift function per C function of the ABI, over the
/// prepared libffi calls. It passes text as pointer and length, reads out-parameters,
/// copies owned strings and frees them with the library's own fk_free, and turns a failed
/// status into `FusionHostError.failed` with the status's name and the library's message.
struct ForeignCalls: LibraryBackend {
    let functions: [EntryPoint: ForeignFunction]
    let path: String

    var exportedSymbols: Set<String> { Set(functions.keys.map(\.symbol)) }
    var isSandboxed: Bool { false }

    private func function(_ entryPoint: EntryPoint) throws(FusionHostError) -> ForeignFunction {
        guard let function = functions[entryPoint] else {
            throw .missingEntryPoint(path: path, symbol: entryPoint.symbol)
        }
        return function
    }

    /// Throws for a status other than FK_OK, with the library's words for it.
    private func check(_ status: Int32, _ entryPoint: EntryPoint) throws(FusionHostError) {
        guard status != FK_OK else { return }
        // The message first: it is only promised until the next fk_ call on this thread.
        let message = lastErrorMessage()
        throw .failed(
            CallFailure(
                function: entryPoint.symbol, status: FusionStatus(rawValue: status),
                statusName: statusName(status), message: message))
    }

    private func statusCall(_ entryPoint: EntryPoint, _ arguments: CArgument...) throws(FusionHostError) {
        try check(try function(entryPoint).call(arguments).int32, entryPoint)
    }

    // MARK: Text

    /// Runs `body` with a pointer to the text's UTF-8 bytes and their count (NULL, 0 for nil).
    private func withText<R>(_ text: String?, _ body: (UnsafeRawPointer?, Int) throws(FusionHostError) -> R) throws(FusionHostError) -> R {
        guard let text else { return try body(nil, 0) }
        // withCString never hands out NULL, even for "", so an empty text reaches the
        // library as empty text (FK_ERR_MALFORMED_JSON), not as a missing argument.
        let outcome: Result<R, FusionHostError> = text.withCString { pointer in
            Result { () throws(FusionHostError) -> R in try body(UnsafeRawPointer(pointer), text.utf8.count) }
        }
        return try outcome.get()
    }

    private static func borrowed(_ pointer: UnsafeMutableRawPointer?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer.assumingMemoryBound(to: CChar.self))
    }

    /// Copies text the library handed over as owned, then frees it with fk_free.
    private func takeOwned(_ pointer: UnsafeMutablePointer<CChar>?, length: Int) -> String? {
        guard let pointer else { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        release(pointer)  // the library's allocator, which need not be this process's malloc
        return text
    }

    /// Calls a function with an owned-text out-parameter and its length, and takes the text.
    private func ownedText(_ body: (UnsafeRawPointer, UnsafeRawPointer) throws(FusionHostError) -> Void) throws(FusionHostError) -> String?
    {
        var text: UnsafeMutablePointer<CChar>?
        var length = 0
        let outcome: Result<Void, FusionHostError> = withUnsafeMutablePointer(to: &text) { textOut in
            withUnsafeMutablePointer(to: &length) { lengthOut in
                Result { () throws(FusionHostError) in try body(UnsafeRawPointer(textOut), UnsafeRawPointer(lengthOut)) }
            }
        }
        // On failure nothing was handed over, but free what might have been anyway.
        let taken = takeOwned(text, length: length)
        try outcome.get()
        return taken
    }

    // MARK: The library

    func abiVersion() -> UInt32 {
        functions[.abiVersion]?.call().uint32 ?? 0
    }

    func libraryVersion() -> String {
        Self.borrowed(functions[.libraryVersion]?.call().pointer)
    }

    func statusName(_ status: Int32) -> String {
        guard let function = functions[.statusName] else { return "status \(status)" }
        return Self.borrowed(function.call(.int32(status)).pointer)
    }

    func lastErrorMessage() -> String {
        Self.borrowed(functions[.lastErrorMessage]?.call().pointer)
    }

    func manifest() throws(FusionHostError) -> String {
        try ownedText { (text, length) throws(FusionHostError) in
            try statusCall(.manifest, .pointer(text), .pointer(length))
        } ?? ""
    }

    func manifestSummary() throws(FusionHostError) -> String {
        try ownedText { (text, length) throws(FusionHostError) in
            try statusCall(.manifestSummary, .pointer(text), .pointer(length))
        } ?? ""
    }

    func featureManifest(_ feature: String) throws(FusionHostError) -> String {
        try withText(feature) { (name, nameLength) throws(FusionHostError) in
            try ownedText { (text, length) throws(FusionHostError) in
                try statusCall(.featureManifest, .pointer(name), .size(nameLength), .pointer(text), .pointer(length))
            } ?? ""
        }
    }

    /// fk_free.
    func release(_ memory: UnsafeMutableRawPointer?) {
        functions[.free]?.call(.pointer(memory))
    }

    // MARK: Instances

    private func createCall(_ entryPoint: EntryPoint, feature: String, text: String?) throws(FusionHostError) -> UInt64 {
        var instance: fk_instance = 0
        try withText(feature) { (name, nameLength) throws(FusionHostError) in
            try withText(text) { (json, jsonLength) throws(FusionHostError) in
                try withUnsafeMutablePointer(to: &instance) { (out) throws(FusionHostError) in
                    try statusCall(entryPoint, .pointer(name), .size(nameLength), .pointer(json), .size(jsonLength), .pointer(out))
                }
            }
        }
        return instance
    }

    func create(feature: String, stateJSON: String?) throws(FusionHostError) -> UInt64 {
        try createCall(.create, feature: feature, text: stateJSON)
    }

    func createWithOptions(feature: String, optionsJSON: String?) throws(FusionHostError) -> UInt64 {
        try createCall(.createWithOptions, feature: feature, text: optionsJSON)
    }

    func destroy(_ instance: UInt64) throws(FusionHostError) {
        try statusCall(.destroy, .uint64(instance))
    }

    func send(_ instance: UInt64, _ inputJSON: String) throws(FusionHostError) {
        try withText(inputJSON) { (json, length) throws(FusionHostError) in
            try statusCall(.send, .uint64(instance), .pointer(json), .size(length))
        }
    }

    func state(_ instance: UInt64) throws(FusionHostError) -> (json: String, version: UInt64) {
        var version: UInt64 = 0
        let json = try withUnsafeMutablePointer(to: &version) { (versionOut) throws(FusionHostError) in
            try ownedText { (text, length) throws(FusionHostError) in
                try statusCall(.state, .uint64(instance), .pointer(text), .pointer(length), .pointer(versionOut))
            }
        }
        return (json ?? "", version)
    }

    func statePatch(_ instance: UInt64, since: UInt64) throws(FusionHostError) -> (json: String, version: UInt64) {
        var version: UInt64 = 0
        let json = try withUnsafeMutablePointer(to: &version) { (versionOut) throws(FusionHostError) in
            try ownedText { (text, length) throws(FusionHostError) in
                try statusCall(.statePatch, .uint64(instance), .uint64(since), .pointer(text), .pointer(length), .pointer(versionOut))
            }
        }
        return (json ?? "", version)
    }

    func version(_ instance: UInt64) throws(FusionHostError) -> UInt64 {
        var version: UInt64 = 0
        try withUnsafeMutablePointer(to: &version) { (out) throws(FusionHostError) in
            try statusCall(.version, .uint64(instance), .pointer(out))
        }
        return version
    }

    func subscribe(_ instance: UInt64, _ callback: fk_change_fn?, _ userData: UnsafeRawPointer?) throws(FusionHostError) -> UInt64 {
        var subscription: UInt64 = 0
        try withUnsafeMutablePointer(to: &subscription) { (out) throws(FusionHostError) in
            try statusCall(.subscribe, .uint64(instance), .pointer(Self.address(of: callback)), .pointer(userData), .pointer(out))
        }
        return subscription
    }

    func unsubscribe(_ instance: UInt64, _ subscription: UInt64) throws(FusionHostError) {
        try statusCall(.unsubscribe, .uint64(instance), .uint64(subscription))
    }

    // MARK: Time

    func advanceClock(_ instance: UInt64, nanoseconds: UInt64) throws(FusionHostError) {
        try statusCall(.advanceClock, .uint64(instance), .uint64(nanoseconds))
    }

    func nextWake(_ instance: UInt64) throws(FusionHostError) -> UInt64 {
        var nanoseconds: UInt64 = 0
        try withUnsafeMutablePointer(to: &nanoseconds) { out in
            Result { () throws(FusionHostError) in try statusCall(.nextWake, .uint64(instance), .pointer(UnsafeRawPointer(out))) }
        }.get()
        return nanoseconds
    }

    func pending(_ instance: UInt64) throws(FusionHostError) -> (effects: UInt64, requests: UInt64) {
        var effects: UInt64 = 0
        var requests: UInt64 = 0
        let outcome: Result<Void, FusionHostError> = withUnsafeMutablePointer(to: &effects) { effectsOut in
            withUnsafeMutablePointer(to: &requests) { requestsOut in
                Result { () throws(FusionHostError) in
                    try statusCall(
                        .pending, .uint64(instance), .pointer(UnsafeRawPointer(effectsOut)), .pointer(UnsafeRawPointer(requestsOut)))
                }
            }
        }
        try outcome.get()
        return (effects, requests)
    }

    // MARK: Host requests

    func setRequestHandler(_ instance: UInt64, _ handler: fk_request_fn?, _ userData: UnsafeRawPointer?) throws(FusionHostError) {
        try statusCall(.setRequestHandler, .uint64(instance), .pointer(Self.address(of: handler)), .pointer(userData))
    }

    func pollRequest(_ instance: UInt64) throws(FusionHostError) -> String? {
        try ownedText { (text, length) throws(FusionHostError) in
            try statusCall(.pollRequest, .uint64(instance), .pointer(text), .pointer(length))
        }
    }

    func respond(_ instance: UInt64, requestID: UInt64, resultJSON: String) throws(FusionHostError) {
        try withText(resultJSON) { (json, length) throws(FusionHostError) in
            try statusCall(.respond, .uint64(instance), .uint64(requestID), .pointer(json), .size(length))
        }
    }

    func failRequest(_ instance: UInt64, requestID: UInt64, message: String) throws(FusionHostError) {
        try withText(message) { (text, length) throws(FusionHostError) in
            try statusCall(.failRequest, .uint64(instance), .uint64(requestID), .pointer(text), .size(length))
        }
    }

    // MARK: Time travel

    func history(_ instance: UInt64) throws(FusionHostError) -> String {
        try ownedText { (text, length) throws(FusionHostError) in
            try statusCall(.history, .uint64(instance), .pointer(text), .pointer(length))
        } ?? ""
    }

    func checkpoint(_ instance: UInt64) throws(FusionHostError) -> String {
        try ownedText { (text, length) throws(FusionHostError) in
            try statusCall(.checkpoint, .uint64(instance), .pointer(text), .pointer(length))
        } ?? ""
    }

    func restartEffects(_ instance: UInt64) throws(FusionHostError) {
        try statusCall(.restartEffects, .uint64(instance))
    }

    func goto(_ instance: UInt64, version: UInt64) throws(FusionHostError) -> UInt64 {
        var reached: UInt64 = 0
        try withUnsafeMutablePointer(to: &reached) { (out) throws(FusionHostError) in
            try statusCall(.goto, .uint64(instance), .uint64(version), .pointer(out))
        }
        return reached
    }

    // MARK: Limits

    /// fk_limit: the old value (-1 for an unknown limit); a negative new value only reads.
    func limit(_ id: Int32, _ newValue: Int64) throws(FusionHostError) -> Int64 {
        try function(.limit).call(.int32(id), .int64(newValue)).int64
    }

    /// A native library's instance does not fail on its own (a fault ends the process).
    func recover(_ instance: UInt64) throws(FusionHostError) {
        throw .missingEntryPoint(path: path, symbol: "recover (a sandboxed plugin's)")
    }

    /// A C function pointer as the plain address libffi passes for a pointer argument.
    private static func address<F>(of function: F?) -> UnsafeRawPointer? {
        guard let function else { return nil }
        return unsafeBitCast(function, to: UnsafeRawPointer.self)
    }
}
