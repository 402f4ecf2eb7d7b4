#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutex with a condition variable, on pthreads.
///
/// The core links neither Foundation nor Synchronization, so that a plugin library
/// needs only the Swift runtime itself; this is the one lock type it uses.
///
/// Most locks are never waited on (every instance has several), so the condition
/// variable is made by the first `wait()`, under the lock: that saves an allocation
/// per lock, about a sixth of an instance's memory.
public final class ConditionLock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Made by the first `wait()`; only touched with the mutex held.
    private var condition: UnsafeMutablePointer<pthread_cond_t>?

    /// An unlocked lock with its condition.
    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        if let condition {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    // Inlinable: every call through the ABI takes two or three locks.
    /// Takes the lock, waiting for it.
    @inlinable public func lock() { pthread_mutex_lock(mutex) }
    /// Releases the lock taken by this thread.
    @inlinable public func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for `broadcast()`; the lock must be held, and is held again on return.
    public func wait() {
        let condition =
            self.condition
            ?? {
                let made = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
                made.initialize(to: pthread_cond_t())
                pthread_cond_init(made, nil)
                self.condition = made
                return made
            }()
        pthread_cond_wait(condition, mutex)
    }
    /// Wakes every thread waiting on the condition; the lock must be held. (Without a
    /// condition yet, nobody has ever waited.)
    public func broadcast() {
        if let condition { pthread_cond_broadcast(condition) }
    }

    @inline(__always)
    /// Runs `body` with the lock held.
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// The calling thread, comparable across calls.
struct ThreadIdentity: Equatable {
    let raw: pthread_t
    static var current: ThreadIdentity { ThreadIdentity(raw: pthread_self()) }
    static func == (a: ThreadIdentity, b: ThreadIdentity) -> Bool { pthread_equal(a.raw, b.raw) != 0 }
}
