import CFusionLimits

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The per-thread message behind `fk_last_error_message()`.
///
/// Each thread keeps one malloc'd C string in a pthread key; it is replaced on the
/// next failure, emptied on the next success, and freed when the thread exits. A count
/// of the threads holding one (in CFusionLimits, with the other process-wide counts) lets a success skip the key
/// while none does: every call ends in `clear()`, and most threads never fail.
enum LastError {
    private struct Key: @unchecked Sendable { let raw: pthread_key_t }

    private static let key: Key = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            free(pointer)
            fusion_last_error_holders_add(-1)
        }
        return Key(raw: key)
    }()

    /// The constant "" handed out when there is no message.
    private static let empty = StaticCString("")

    static func set(_ message: String) {
        let old = pthread_getspecific(key.raw)
        // Counted before it is set: a count too high for a moment costs a lookup, too low a lost clear.
        if old == nil { fusion_last_error_holders_add(1) }
        // A C string ends at its first NUL: one inside (a name quoted from the input, which
        // may hold one) is written as \u0000, so that nothing after it is lost.
        let text =
            message.utf8.contains(0)
            ? message.split(separator: "\0", omittingEmptySubsequences: false).joined(separator: "\\u0000") : message
        pthread_setspecific(key.raw, UnsafeRawPointer(strdup(text)))
        free(old)
    }

    @inline(__always)
    static func clear() {
        // This thread's own count is seen by itself: zero means it holds nothing.
        guard fusion_last_error_held() != 0 else { return }
        guard let old = pthread_getspecific(key.raw) else { return }
        pthread_setspecific(key.raw, nil)
        free(old)
        fusion_last_error_holders_add(-1)
    }

    static var current: UnsafePointer<CChar> {
        guard let message = pthread_getspecific(key.raw) else { return empty.pointer }
        return UnsafePointer(message.assumingMemoryBound(to: CChar.self))
    }
}

/// A C string allocated once and never freed: for the borrowed strings the library
/// hands out that stay valid while it is loaded.
struct StaticCString: @unchecked Sendable {
    let pointer: UnsafePointer<CChar>
    init(_ text: String) {
        pointer = UnsafePointer(strdup(text)!)
    }
}
