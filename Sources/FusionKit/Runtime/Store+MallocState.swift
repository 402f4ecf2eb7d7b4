#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Store {
    /// How many bytes beyond the last state's length `mallocState` asks for, so that a
    /// state that grew a little since (a counter passing 9) still fits the first write.
    @inlinable static var mallocSlack: Int { 64 }

    /// The state's JSON and a NUL in memory from `malloc`, which the caller frees (what
    /// the C ABI's `fk_state` hands out), and its version. A small state is written
    /// straight into that memory by its plan, under one lock: no array is made, kept or
    /// freed in between. Nil when the state is not known to be small (before its first
    /// write, or past `smallState`): the caller then takes `encodedState` and copies it.
    @inlinable
    public func mallocState() throws(FusionError) -> (memory: UnsafeMutableRawPointer, length: Int, version: UInt64)? {
        lock.lock()
        guard lastEncodedCount <= Self.smallState else {
            lock.unlock()
            return nil
        }
        var capacity = lastEncodedCount + Self.mallocSlack
        var locked = true
        while true {
            guard let memory = malloc(capacity) else {
                if locked { lock.unlock() }
                throw FusionError(.internalError, "out of memory allocating \(capacity) bytes")
            }
            if !locked { lock.lock() }
            let written: (length: Int, version: UInt64)
            do {
                // Unlocks, whatever it does.
                written = try writeLocked(into: UnsafeMutableRawBufferPointer(start: memory, count: capacity))
            } catch {
                free(memory)
                throw error
            }
            locked = false
            if written.length < capacity { return (memory, written.length, written.version) }
            // It grew past the slack since it was last written: again, at its new length.
            free(memory)
            capacity = written.length + Self.mallocSlack
        }
    }
}
