import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Calls a function every 10 ms until stopped, with the real time since its last call:
/// what moves a manual clock in real time for a recorded or journaled session, so that
/// it replays exactly.
///
/// Every ticker of the process is called from one thread (`TickerThread`): a bridge
/// holds a ticker per journaled instance, and a thread each would take one of
/// Dispatch's pool (which has a limit: tickers beyond it never ran, and stopping one of
/// them waited forever) and wake the machine 100 times a second per session.
public final class RealTimeTicker: Sendable {
    /// The function and when it was last called; nil when not running.
    private let call = LockedValue<Call?>(nil)
    /// Held while the function runs, so that `stop` returns only once a call under way
    /// has ended (unless `stop` runs on the ticking thread, inside some ticker's call).
    private let firing = LockedValue(())

    private struct Call {
        let tick: @Sendable (_ elapsedNanoseconds: UInt64) -> Void
        var last: ContinuousClock.Instant
    }

    public init() {}

    /// Starts calling `tick` with the nanoseconds since the previous call (or the start).
    public func start(_ tick: @escaping @Sendable (_ elapsedNanoseconds: UInt64) -> Void) {
        call.withLock { $0 = Call(tick: tick, last: .now) }
        TickerThread.shared.add(self)
    }

    /// Stops the calls; returns once the last one has ended. Does nothing when not
    /// started or already stopped. Not to be called from `tick` itself.
    public func stop() {
        let wasRunning = call.withLock { call in
            defer { call = nil }
            return call != nil
        }
        guard wasRunning else { return }
        TickerThread.shared.remove(self)
        // On the ticking thread (a tick that let go of the last reference to what owns
        // this ticker) no call of it is under way, and waiting would wait on itself.
        if !TickerThread.shared.isCurrent { firing.withLock { _ in } }
    }

    /// One call, from the ticking thread, unless stopped meanwhile.
    fileprivate func fire(at now: ContinuousClock.Instant) {
        firing.withLock { _ in
            let due = call.withLock { call -> (@Sendable (UInt64) -> Void, Duration)? in
                guard let last = call?.last, let tick = call?.tick else { return nil }
                call?.last = now
                return (tick, now - last)
            }
            guard let (tick, elapsed) = due else { return }
            tick(
                UInt64(max(0, elapsed.components.seconds)) * 1_000_000_000
                    + UInt64(max(0, elapsed.components.attoseconds / 1_000_000_000)))
        }
    }
}

/// The one thread that calls every running `RealTimeTicker`, every 10 ms; started with
/// the first ticker, it then stays (idle tickers cost a lock each per round).
private final class TickerThread: Sendable {
    static let shared = TickerThread()

    private struct Tickers {
        var running: [ObjectIdentifier: RealTimeTicker] = [:]
        var started = false
    }
    private let tickers = LockedValue(Tickers())
    /// The ticking thread, once it runs.
    private let thread = LockedValue<pthread_t?>(nil)

    /// Whether the caller is the ticking thread (inside a ticker's call).
    var isCurrent: Bool {
        guard let ticking = thread.withLock({ $0 }) else { return false }
        return pthread_equal(ticking, pthread_self()) != 0
    }

    func add(_ ticker: RealTimeTicker) {
        let start = tickers.withLock { tickers in
            tickers.running[ObjectIdentifier(ticker)] = ticker
            defer { tickers.started = true }
            return !tickers.started
        }
        if start { DispatchQueue(label: "fusion.real-time-ticker").async { [self] in run() } }
    }

    func remove(_ ticker: RealTimeTicker) {
        _ = tickers.withLock { $0.running.removeValue(forKey: ObjectIdentifier(ticker)) }
    }

    private func run() {
        thread.withLock { $0 = pthread_self() }
        while true {
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
            let now = ContinuousClock.Instant.now
            for ticker in tickers.withLock({ Array($0.running.values) }) { ticker.fire(at: now) }
        }
    }
}
