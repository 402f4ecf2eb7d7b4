import FusionHost
@_spi(Fuzzing) import WasmKit

#if canImport(Glibc)
    import Glibc
#endif

/// One instantiation of a plugin's module: its own store, linear memory and globals, so
/// a trap or a runaway call in it touches nothing of another instance. Not thread-safe:
/// its `SandboxedInstance` calls it under a lock, one call at a time.
final class ModuleInstance {
    let plugin: PluginModule
    private let store: Store
    private let instance: Instance
    private let memory: Memory
    private let cap: MemoryCap
    private let output: GuestOutput
    private var functions: [String: Function] = [:]

    init(plugin: PluginModule) throws(SandboxFault) {
        self.plugin = plugin
        store = Store(engine: plugin.engine)
        cap = MemoryCap(limit: plugin.limits.memoryLimit)
        store.resourceLimiter = cap
        output = GuestOutput()
        var imports = Imports()
        let output = self.output
        let wasi = "wasi_snapshot_preview1"
        imports.define(
            module: wasi, name: "fd_write",
            Function(store: store, parameters: [.i32, .i32, .i32, .i32], results: [.i32]) { caller, arguments in
                [.i32(output.write(caller.instance?.exports[memory: "memory"], arguments))]
            })
        imports.define(
            module: wasi, name: "fd_close", Function(store: store, parameters: [.i32], results: [.i32]) { _, _ in [.i32(8)] })  // EBADF
        imports.define(
            module: wasi, name: "fd_seek",
            Function(store: store, parameters: [.i32, .i64, .i32, .i32], results: [.i32]) { _, _ in [.i32(8)] })
        imports.define(
            module: wasi, name: "random_get",
            Function(store: store, parameters: [.i32, .i32], results: [.i32]) { caller, arguments in
                [.i32(GuestOutput.random(caller.instance?.exports[memory: "memory"], arguments))]
            })
        store.fuel = Fuel(remaining: plugin.limits.fuelPerCall)
        do {
            instance = try plugin.module.instantiate(store: store, imports: imports)
        } catch {
            throw Self.fault(error, cap: cap, output: output, limits: plugin.limits)
        }
        guard let memory = instance.exports[memory: "memory"] else { throw .brokenContract("it exports no memory") }
        self.memory = memory
    }

    // MARK: Calls

    /// Calls an export with the call's budget: a fresh fuel allowance, the output so far
    /// forgotten. A trap, the fuel running out or the memory cap becomes a `SandboxFault`.
    func call(_ name: String, _ arguments: [Value]) throws(SandboxFault) -> [Value] {
        let function: Function
        if let known = functions[name] {
            function = known
        } else {
            guard let found = instance.exports[function: name] else { throw .brokenContract("it does not export \(name)") }
            functions[name] = found
            function = found
        }
        store.fuel = Fuel(remaining: plugin.limits.fuelPerCall)
        output.reset()
        do {
            return try function.invoke(arguments)
        } catch {
            throw Self.fault(error, cap: cap, output: output, limits: plugin.limits)
        }
    }

    func callI32(_ name: String, _ arguments: [Value]) throws(SandboxFault) -> Int32 {
        guard case .i32(let bits)? = try call(name, arguments).first else { throw .brokenContract("\(name) returned no i32") }
        return Int32(bitPattern: bits)
    }

    func callI64(_ name: String, _ arguments: [Value]) throws(SandboxFault) -> Int64 {
        guard case .i64(let bits)? = try call(name, arguments).first else { throw .brokenContract("\(name) returned no i64") }
        return Int64(bitPattern: bits)
    }

    private static func fault(_ error: any Error, cap: MemoryCap, output: GuestOutput, limits: SandboxLimits) -> SandboxFault {
        if let asked = cap.refused { return .outOfMemory(limits, asked: asked) }
        let text = "\(error)"
        let first = text.split(separator: "\n").first.map(String.init) ?? text
        if first.contains("out of fuel") { return .outOfTime(limits) }
        return .trapped(first.hasPrefix("Trap: ") ? String(first.dropFirst(6)) : first, output: output.text)
    }

    // MARK: Text across the boundary

    /// Copies text into the module (fk_alloc) and runs `body` with its pointer and length;
    /// frees it after. Empty text still gets room, so it reaches the module as empty text.
    func withText<R>(_ bytes: [UInt8], _ body: (Value, Value) throws(SandboxFault) -> R) throws(SandboxFault) -> R {
        let pointer = UInt32(bitPattern: try callI32("fk_alloc", [.i32(UInt32(bytes.count))]))
        try write(bytes, at: pointer)
        defer { _ = try? call("fk_free", [.i32(pointer)]) }
        return try body(.i32(pointer), .i32(UInt32(bytes.count)))
    }

    private func write(_ bytes: [UInt8], at pointer: UInt32) throws(SandboxFault) {
        guard Int(pointer) + bytes.count <= memory.byteCount, pointer != 0 else {
            throw .brokenContract("fk_alloc gave room outside its memory")
        }
        guard !bytes.isEmpty else { return }
        memory.withUnsafeMutableBufferPointer(offset: UInt(pointer), count: bytes.count) { $0.copyBytes(from: bytes) }
    }

    /// Reads the NUL-terminated text at `pointer` that the module handed over, and gives it
    /// back with fk_free; nil for a null pointer. Bounds are checked here: the module's
    /// word about where its text ends is not trusted.
    func takeText(_ pointer: Int32) throws(SandboxFault) -> [UInt8]? {
        let address = UInt32(bitPattern: pointer)
        guard address != 0 else { return nil }
        let size = memory.byteCount
        guard Int(address) < size else { throw .brokenContract("it returned a pointer outside its memory") }
        let text: [UInt8]? = memory.withUnsafeBufferPointer(offset: UInt(address), count: size - Int(address)) { buffer in
            guard let end = buffer.firstIndex(of: 0) else { return nil }
            return Array(buffer[..<end])
        }
        _ = try call("fk_free", [.i32(address)])
        guard let text else { throw .brokenContract("it returned text that does not end in its memory") }
        return text
    }

    /// `takeText` for text the host passes on as JSON (a state, a patch, a host request):
    /// it must be well-formed UTF-8 and exactly one JSON value, or the module broke the
    /// contract. Pasted unchecked into a bridge's messages, a plugin's text could end one
    /// value early and forge what follows.
    func takeJSON(_ pointer: Int32, from function: String) throws(SandboxFault) -> [UInt8]? {
        guard let text = try takeText(pointer) else { return nil }
        do throws(JSONParseError) {
            _ = try JSONParser.parse(text)
        } catch {
            throw .brokenContract("\(function) returned text that is not one JSON value (\(error))")
        }
        return text
    }

    /// Checks that every export of the contract has the contract's type, which a module
    /// that was not built from it may not: refused at load, not met as a trap at every call.
    func checkSignatures() throws(SandboxFault) {
        for (name, expected) in PluginModule.signatures {
            guard let function = instance.exports[function: name] else { throw .brokenContract("it does not export \(name)") }
            let found = function.type
            guard found == expected else {
                throw .brokenContract(
                    "its \(name) takes \(found.parameters) and returns \(found.results); "
                        + "the contract's takes \(expected.parameters) and returns \(expected.results)")
            }
        }
    }

    /// Linear memory now, in bytes.
    var memoryBytes: Int { memory.byteCount }
}

/// The memory cap: refuses a `memory.grow` past it and remembers what was asked, so the
/// trap that follows is told as the cap.
final class MemoryCap: ResourceLimiter, @unchecked Sendable {
    // @unchecked: used only on the thread that runs its store's call.
    let limit: Int
    private(set) var refused: Int?

    init(limit: Int) { self.limit = limit }

    func limitMemoryGrowth(to desired: Int) throws -> Bool {
        if desired <= limit { return true }
        refused = desired
        return false
    }

    func limitTableGrowth(to desired: Int) throws -> Bool { desired <= 1 << 20 }
}

/// What a module writes to its stderr and stdout during a call (a Swift fatal error's
/// message), the first 2 KiB; and the WASI randomness it asks for.
final class GuestOutput: @unchecked Sendable {
    // @unchecked: used only on the thread that runs its store's call.
    private var bytes: [UInt8] = []

    func reset() { bytes.removeAll(keepingCapacity: true) }

    var text: String {
        String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// fd_write(fd, iovs, iovs_len, nwritten): keeps the bytes, says all were written.
    func write(_ memory: Memory?, _ arguments: [Value]) -> UInt32 {
        guard let memory, arguments.count == 4, case .i32(let iovs) = arguments[1], case .i32(let count) = arguments[2],
            case .i32(let written) = arguments[3]
        else { return 28 }  // EINVAL
        let size = memory.byteCount
        var total: UInt32 = 0
        for index in 0..<Int(min(count, 1024)) {
            let entry = Int(iovs) + index * 8
            guard entry + 8 <= size else { return 21 }  // EFAULT
            let (base, length) = memory.withUnsafeBufferPointer(offset: UInt(entry), count: 8) {
                (Int($0.loadUnaligned(as: UInt32.self)), Int($0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            }
            guard base + length <= size else { return 21 }
            if bytes.count < 2048 && length > 0 {
                memory.withUnsafeBufferPointer(offset: UInt(base), count: min(length, 2048 - bytes.count)) { bytes += $0 }
            }
            total &+= UInt32(truncatingIfNeeded: length)
        }
        guard Int(written) + 4 <= size else { return 21 }
        memory.withUnsafeMutableBufferPointer(offset: UInt(written), count: 4) { $0.storeBytes(of: total, as: UInt32.self) }
        return 0
    }

    /// The kernel's randomness, opened once for the process (reads need no lock).
    private static let urandom: Int32 = open("/dev/urandom", O_RDONLY | O_CLOEXEC)

    /// random_get(buffer, length): the host's randomness (it seeds the module's hashing).
    static func random(_ memory: Memory?, _ arguments: [Value]) -> UInt32 {
        guard let memory, arguments.count == 2, case .i32(let buffer) = arguments[0], case .i32(let length) = arguments[1],
            Int(buffer) + Int(length) <= memory.byteCount
        else { return 21 }
        // In bulk from the kernel: a call is one operator of fuel however much it asks for,
        // so filling its buffer must stay quick even at the memory's whole size.
        let filled = memory.withUnsafeMutableBufferPointer(offset: UInt(buffer), count: Int(length)) { room -> Bool in
            var offset = 0
            while offset < room.count {
                let got = read(Self.urandom, room.baseAddress! + offset, min(room.count - offset, 1 << 25))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { return false }
                offset += got
            }
            return true
        }
        return filled ? 0 : 29  // EIO
    }
}
