#if hasFeature(Embedded)
    /// Time, as features see it, under Embedded Swift: there are no threads to sleep on,
    /// so the host moves the clock and the instance fires the timed effects
    /// (`Effect.after`, `Effect.every`) that are due. A class: Embedded Swift keeps
    /// existentials of class-bound protocols only.
    public protocol FusionClock: AnyObject, Sendable {
        /// How far the clock has been moved.
        var now: Duration { get }
    }

    /// A clock the host moves: by the page's real time, or by hand in a scripted run.
    public final class ManualClock: FusionClock, @unchecked Sendable {
        /// How far the clock has been moved.
        public private(set) var now: Duration
        /// A clock at `time` (zero by default).
        public init(startingAt time: Duration = .zero) { now = time }
        /// Moves time forward, up to the clock's `end`; the instance then fires what is due.
        public func advance(by duration: Duration) { now = min(now + duration, Self.end) }
    }

    /// Under Embedded Swift, the clock the host moves by its real time.
    public typealias SystemClock = ManualClock
#else
    /// Time, as features see it. Effects wait on the environment's clock (`Effect.after`,
    /// `Effect.every`) rather than calling `Task.sleep` themselves, so that a test, a journal
    /// or a WebAssembly host can move time instead of waiting. A class: Embedded Swift keeps
    /// existentials of class-bound protocols only.
    public protocol FusionClock: AnyObject, Sendable {
        /// Suspends for `duration`; throws `CancellationError` when the effect is cancelled.
        func sleep(for duration: Duration) async throws
    }

    /// The real, monotonic clock.
    public final class SystemClock: FusionClock {
        /// The clock every instance has unless its options say `"clock": "manual"`.
        public init() {}
        /// Sleeps for real (`Task.sleep`); throws `CancellationError` when the effect is cancelled.
        public func sleep(for duration: Duration) async throws {
            try await Task.sleep(for: duration)
        }
    }

    /// A clock that only moves when told to: `advance(by:)` wakes every sleeper whose
    /// deadline has come, in deadline order.
    public final class ManualClock: FusionClock, @unchecked Sendable {
        private struct Sleeper {
            let id: UInt64
            let deadline: Duration
            let continuation: CheckedContinuation<Void, any Error>
        }

        private let lock = ConditionLock()
        private var current: Duration = .zero
        private var sleepers: [Sleeper] = []
        private var nextID: UInt64 = 0
        /// Waiters for `waitForSleepers`: resumed once at least `count` effects sleep here.
        private var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// A clock at time zero with no sleepers.
        public init() {}

        /// A clock at `time` (a `now` read before) with no sleepers.
        public init(startingAt time: Duration) {
            current = time
        }

        /// Returns once at least `count` effects are asleep on this clock. Tests call it
        /// before `advance(by:)`, so that an effect started by an input (which begins on
        /// another thread) is known to be waiting before time moves.
        public func waitForSleepers(_ count: Int = 1) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if sleepers.count >= count {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                sleeperWaiters.append((count, continuation))
                lock.unlock()
            }
        }

        /// Lock held. Takes the waiters that are satisfied now, to resume after unlocking.
        private func satisfiedWaitersLocked() -> [CheckedContinuation<Void, Never>] {
            let ready = sleeperWaiters.filter { $0.count <= sleepers.count }
            sleeperWaiters.removeAll { $0.count <= sleepers.count }
            return ready.map(\.continuation)
        }

        /// How far the clock has been advanced.
        public var now: Duration { lock.withLock { current } }

        /// How many effects are waiting on this clock.
        public var sleeperCount: Int { lock.withLock { sleepers.count } }

        /// How far the clock must move before the first sleeper wakes (zero when one is due
        /// already); nil when no effect sleeps on it, or only past the clock's `end` (they
        /// never wake: a host that moves the clock to each wake in turn comes to a stop).
        public var untilNextWake: Duration? {
            lock.withLock {
                sleepers.lazy.map(\.deadline).filter { $0 <= Self.end }.min().map { max(.zero, $0 - current) }
            }
        }

        /// Suspends until `advance(by:)` moves the time past now + `duration`; throws
        /// `CancellationError` when the effect is cancelled first.
        public func sleep(for duration: Duration) async throws {
            let id = lock.withLock { () -> UInt64 in
                nextID += 1
                return nextID
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    lock.lock()
                    if Task.isCancelled {
                        lock.unlock()
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    if duration <= .zero {
                        lock.unlock()
                        continuation.resume()
                        return
                    }
                    sleepers.append(Sleeper(id: id, deadline: current + duration, continuation: continuation))
                    let ready = satisfiedWaitersLocked()
                    lock.unlock()
                    for waiter in ready { waiter.resume() }
                }
            } onCancel: {
                let cancelled = lock.withLock { () -> Sleeper? in
                    guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                    return sleepers.remove(at: index)
                }
                cancelled?.continuation.resume(throwing: CancellationError())
            }
        }

        /// Moves time forward, up to the clock's `end`, and wakes the sleepers that are due.
        /// Returns how many woke.
        @discardableResult
        public func advance(by duration: Duration) -> Int {
            let due = lock.withLock { () -> [Sleeper] in
                current = min(current + duration, Self.end)
                let due = sleepers.filter { $0.deadline <= current }.sorted { $0.deadline < $1.deadline }
                sleepers.removeAll { $0.deadline <= current }
                return due
            }
            for sleeper in due { sleeper.continuation.resume() }
            return due.count
        }
    }
#endif

extension ManualClock {
    /// Where a manual clock stops: 2^63 - 1 nanoseconds (about 292 years) after time zero.
    /// A move past it stops there, so that every time the clock can show is a signed 64-bit
    /// count of nanoseconds, which a checkpoint, a journal's records and every host say
    /// exactly (a checkpoint's clock read from one past it was cut short before, and a
    /// session resumed from it ran at another time than the one it left).
    public static var end: Duration { .nanoseconds(Int64.max) }
}
