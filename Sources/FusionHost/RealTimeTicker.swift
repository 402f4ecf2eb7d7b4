import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Calls a function every 10 ms on a thread of its own until stopped, with the real time
/// since its last call: what moves a manual clock in real time for a recorded or
/// journaled session, so that it replays exactly.
public final class RealTimeTicker: Sendable {
    private let label: String
    private let running = Mutex(false)
    private let done = DispatchSemaphore(value: 0)

    public init(label: String) {
        self.label = label
    }

    /// Starts calling `tick` with the nanoseconds since the previous call (or the start).
    public func start(_ tick: @escaping @Sendable (_ elapsedNanoseconds: UInt64) -> Void) {
        running.withLock { $0 = true }
        DispatchQueue(label: label).async { [self] in
            var last = ContinuousClock.Instant.now
            while running.withLock({ $0 }) {
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
                let now = ContinuousClock.Instant.now
                let elapsed = now - last
                last = now
                tick(
                    UInt64(max(0, elapsed.components.seconds)) * 1_000_000_000
                        + UInt64(max(0, elapsed.components.attoseconds / 1_000_000_000)))
            }
            done.signal()
        }
    }

    /// Stops the calls; returns once the last one has ended. Does nothing when not
    /// started or already stopped. Not to be called from `tick` itself.
    public func stop() {
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        if wasRunning { done.wait() }
    }
}
