/// A random number generator a feature is given. Seeded, it repeats its sequence, so a
/// test (or a front end, through the creation options) can pin what a feature draws.
///
/// SplitMix64: small, fast and good enough for UI logic; not for cryptography.
public final class RandomSource: RandomNumberGenerator, @unchecked Sendable {
    private let lock = ConditionLock()
    private var stateValue: UInt64
    /// The seed the sequence started from: record it to draw the same numbers again.
    public let seed: UInt64

    /// A source seeded with `seed`, or from the system's generator when nil.
    public init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        let chosen = seed ?? system.next()
        self.seed = chosen
        self.stateValue = chosen
    }

    /// A source of `seed`'s sequence, at `position` (a `position` read before): it draws
    /// what that source would have drawn next.
    public init(seed: UInt64, position: UInt64) {
        self.seed = seed
        self.stateValue = position
    }

    /// Where in its sequence the source is: with the seed, all it takes to go on from here.
    public var position: UInt64 { lock.withLock { stateValue } }

    /// The next number of the sequence; safe from any thread (draws are serialized).
    public func next() -> UInt64 {
        lock.withLock {
            stateValue &+= 0x9E37_79B9_7F4A_7C15
            var z = stateValue
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A uniformly drawn integer in `range`.
    public func int(in range: ClosedRange<Int>) -> Int {
        var generator = self
        return Int.random(in: range, using: &generator)
    }
}
