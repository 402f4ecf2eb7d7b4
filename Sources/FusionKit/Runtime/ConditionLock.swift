#if hasFeature(Embedded)
    /// Under Embedded Swift (WebAssembly) an instance has one thread: its calls come one at
    /// a time from the host, so there is nothing to exclude and nobody to wait for.
    public struct ConditionLock: @unchecked Sendable {
        /// A lock.
        public init() {}
        /// Nothing to take: one thread.
        @inlinable public func lock() {}
        /// Nothing to release.
        @inlinable public func unlock() {}
        /// Runs `body`.
        @inline(__always)
        public func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R { try body() }
    }
#else
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
    /// Every instance has several locks, so each is one allocation: the mutex lives in the
    /// same heap object as the reference to it (`LockStorage`, a `ManagedBuffer` whose one
    /// element is the mutex, which never moves), and the condition variable is made by the
    /// first `wait()`, under the lock, since most locks are never waited on. Together that
    /// saves two allocations per lock, about a quarter of an instance's memory.
    ///
    /// A struct holding one reference: copies are the same lock.
    public struct ConditionLock: @unchecked Sendable {
        @usableFromInline let storage: LockStorage

        /// An unlocked lock with its condition.
        public init() {
            storage = unsafeDowncast(LockStorage.create(minimumCapacity: 1) { _ in nil }, to: LockStorage.self)
            storage.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
        }

        // Inlinable: every call through the ABI takes two or three locks.
        /// Takes the lock, waiting for it.
        @inlinable public func lock() { storage.withUnsafeMutablePointerToElements { _ = pthread_mutex_lock($0) } }
        /// Releases the lock taken by this thread.
        @inlinable public func unlock() { storage.withUnsafeMutablePointerToElements { _ = pthread_mutex_unlock($0) } }

        /// Waits for `broadcast()`; the lock must be held, and is held again on return.
        public func wait() {
            storage.withUnsafeMutablePointers { condition, mutex in
                let made =
                    condition.pointee
                    ?? {
                        let made = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
                        made.initialize(to: pthread_cond_t())
                        pthread_cond_init(made, nil)
                        condition.pointee = made
                        return made
                    }()
                _ = pthread_cond_wait(made, mutex)
            }
        }
        /// Wakes every thread waiting on the condition; the lock must be held. (Without a
        /// condition yet, nobody has ever waited.)
        public func broadcast() {
            if let condition = storage.header { pthread_cond_broadcast(condition) }
        }

        @inline(__always)
        /// Runs `body` with the lock held.
        public func withLock<R>(_ body: () throws -> R) rethrows -> R {
            lock()
            defer { unlock() }
            return try body()
        }
    }

    /// A lock's one heap object: the condition variable once made (the header), then the
    /// mutex (the single element), at an address that stays put for the object's life.
    /// (Not Sendable itself: `ManagedBuffer` never is; `ConditionLock` vouches for it.)
    public final class LockStorage: ManagedBuffer<UnsafeMutablePointer<pthread_cond_t>?, pthread_mutex_t> {
        deinit {
            withUnsafeMutablePointers { condition, mutex in
                if let made = condition.pointee {
                    pthread_cond_destroy(made)
                    made.deallocate()
                }
                pthread_mutex_destroy(mutex)
                _ = mutex.deinitialize(count: 1)
            }
        }
    }

    /// The calling thread, comparable across calls.
    struct ThreadIdentity: Equatable {
        let raw: pthread_t
        static var current: ThreadIdentity { ThreadIdentity(raw: pthread_self()) }
        static func == (a: ThreadIdentity, b: ThreadIdentity) -> Bool { pthread_equal(a.raw, b.raw) != 0 }
    }
#endif
