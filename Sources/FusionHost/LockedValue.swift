#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value reached only under a pthread mutex: what a host's threads share (the
/// journal's caller, ticker and committer; an instance's callbacks; a library's
/// descriptions). Not Synchronization's `Mutex`, which locks with futexes that
/// ThreadSanitizer does not see, so that it reports every access from two threads as a
/// race; with this, a report is a real one. Package-wide, so that the other modules and
/// the tests the sanitizer runs use it too.
package final class LockedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
