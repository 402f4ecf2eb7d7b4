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

    /// A uniformly drawn integer in `range`: the number `Int.random(in:using:)` draws on a
    /// 64-bit platform, drawn here in 64-bit arithmetic on every platform, so that a seed
    /// gives the same numbers in the WebAssembly module (32-bit `Int`) as natively.
    public func int(in range: ClosedRange<Int>) -> Int {
        let lower = Int64(range.lowerBound)
        let delta = UInt64(bitPattern: Int64(range.upperBound) &- lower)
        if delta == .max { return Int(truncatingIfNeeded: next()) }
        // Lemire's nearly divisionless method, as the standard library's `next(upperBound:)`.
        let bound = delta + 1
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold { product = next().multipliedFullWidth(by: bound) }
        }
        return Int(truncatingIfNeeded: lower &+ Int64(bitPattern: product.high))
    }
}
