/// A token bucket: `rate` messages per second on average, bursts of up to `rate`.
/// One per connection, used only by that connection's reading task.
struct RateLimiter {
    let rate: Int
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(perSecond rate: Int, now: ContinuousClock.Instant = .now) {
        self.rate = max(rate, 1)
        tokens = Double(self.rate)
        last = now
    }

    /// Whether the bucket would be full now: nothing sent for long enough to forget it.
    func isFull(now: ContinuousClock.Instant = .now) -> Bool {
        now - last >= .seconds(1)
    }

    /// Takes a token if there is one.
    mutating func allow(now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = now - last
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(Double(rate), tokens + seconds * Double(rate))
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
