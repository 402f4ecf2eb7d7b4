/// What a feature is given from outside: time and randomness. Tests replace them
/// (a `ManualClock`, a seeded `RandomSource`) to make effects deterministic.
public struct Environment: Sendable {
    public var clock: any FusionClock
    public var random: RandomSource

    public init(clock: any FusionClock = SystemClock(), random: RandomSource = RandomSource()) {
        self.clock = clock
        self.random = random
    }

    /// The real clock and an unpredictably seeded random source.
    public static var live: Environment { Environment() }
}
