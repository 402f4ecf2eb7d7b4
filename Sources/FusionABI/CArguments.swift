import CFusionKit
import FusionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading the caller's arguments and handing results back, by the header's rules.
enum CArguments {
    /// The bytes of a (pointer, length) text argument. Borrowed for the call only.
    static func text(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ name: String) throws(FusionError) -> UnsafeRawBufferPointer {
        guard let pointer else { throw FusionError(.nullArgument, "\(name) is NULL") }
        let limit = FusionLimit.length.value
        if length == nulTerminated {
            // strnlen: a missing NUL is read no further than one byte past the limit.
            let count = strnlen(pointer, limit + 1)
            guard count <= limit else { throw FusionLimit.length.exceeded("\(name) is longer than \(limit) bytes") }
            return UnsafeRawBufferPointer(start: pointer, count: count)
        }
        guard length >= 0 else {
            throw FusionError(
                .invalidArgument, "\(name)'s length \(UInt(bitPattern: length)) is too large; pass the length in bytes or FK_NUL_TERMINATED"
            )
        }
        guard length <= limit else { throw FusionLimit.length.exceeded("\(name) is \(length) bytes") }
        return UnsafeRawBufferPointer(start: pointer, count: length)
    }

    /// FK_NUL_TERMINATED, as Swift sees a size_t.
    static let nulTerminated: Int = FK_NUL_TERMINATED

    /// A name given as text: valid UTF-8 or an error.
    static func name(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ what: String) throws(FusionError) -> String {
        let bytes = try text(pointer, length, what)
        guard let name = String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) else {
            throw FusionError(.invalidUTF8, "\(what) is not valid UTF-8")
        }
        return name
    }

    /// A text argument parsed as JSON; `what` names it in messages ("the options").
    static func json(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ name: String, what: String) throws(FusionError) -> JSONValue {
        let bytes = try text(pointer, length, name)
        switch Result(catching: { () throws(JSONParseError) in try JSONParser.parse(bytes, depthLimit: .library) }) {
        case .success(let value): return value
        case .failure(let error): throw FusionError(error, in: what)
        }
    }

    /// A caller-owned fk_buffer, checked by its rules: required, and data may be NULL
    /// only with capacity 0 (asking for the length).
    static func buffer(_ buffer: UnsafeMutablePointer<fk_buffer>?) throws(FusionError) -> UnsafeMutablePointer<fk_buffer> {
        guard let buffer else { throw FusionError(.nullArgument, "buffer is NULL") }
        guard buffer.pointee.data != nil || buffer.pointee.capacity == 0 else {
            throw FusionError(.nullArgument, "buffer->data is NULL but buffer->capacity is \(UInt(bitPattern: buffer.pointee.capacity))")
        }
        return buffer
    }

    /// The caller's buffer as the memory a state is written into (see
    /// `FeatureInstance.writeState`).
    static func room(_ buffer: UnsafeMutablePointer<fk_buffer>) -> UnsafeMutableRawBufferPointer {
        // capacity is a size_t: above Int.max it reads negative here, and is plenty.
        let capacity = buffer.pointee.capacity
        return UnsafeMutableRawBufferPointer(start: buffer.pointee.data, count: capacity < 0 ? Int.max : capacity)
    }

    /// After a state was written into the caller's buffer (`room`): sets its length and
    /// version and, when it did not fit, leaves an empty string there (as snprintf
    /// does, the length is set either way).
    static func finish(_ buffer: UnsafeMutablePointer<fk_buffer>, length: Int, version: UInt64) {
        buffer.pointee.length = length
        buffer.pointee.version = version
        let capacity = buffer.pointee.capacity
        if capacity >= 0 && length >= capacity && capacity != 0 { buffer.pointee.data?.pointee = 0 }
    }

    /// Copies bytes into a new NUL-terminated buffer the caller frees with fk_free().
    static func owned(_ bytes: [UInt8]) throws(FusionError) -> UnsafeMutablePointer<CChar> {
        guard let memory = malloc(bytes.count + 1) else {
            throw FusionError(.internalError, "out of memory allocating \(bytes.count + 1) bytes")
        }
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { memcpy(memory, base, bytes.count) }
        }
        memory.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
        return memory.assumingMemoryBound(to: CChar.self)
    }
}

/// Runs an exported function's body: errors become a status and the thread's message.
@inline(__always)
func abiCall(_ body: () throws(FusionError) -> Void) -> fk_status {
    do {
        try body()
        LastError.clear()
        return FK_OK
    } catch {
        LastError.set(error.message)
        return error.status.rawValue
    }
}
