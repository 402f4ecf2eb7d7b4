/// What a feature is given from outside: time, randomness, the host, settings, and the
/// signed-in user.
/// Tests replace them (a `ManualClock`, a seeded `RandomSource`) so that effects are
/// deterministic; front ends choose them through the creation options.
public struct Environment: Sendable {
    /// The clock effects sleep on: `SystemClock`, or a `ManualClock` in tests and scripted runs.
    public var clock: any FusionClock
    /// Where the feature draws random numbers: seeded by the creation option `"seed"`.
    public var random: RandomSource
    #if !hasFeature(Embedded)
        /// Work the front end does for the feature (see `HostRequest`).
        public var host: HostRequests
    #endif
    /// Feature-specific settings from the creation options (`"settings"`), an object.
    public var settings: JSONValue
    /// The signed-in user the host vouches for (the creation option `"user"`); nil when
    /// nobody signed in, or the host does not say.
    public var user: User?

    #if hasFeature(Embedded)
        /// An environment; each part defaults to the live one (the host-moved clock,
        /// unpredictable seed, no settings). Host requests are native-only for now.
        public init(
            clock: any FusionClock = SystemClock(), random: RandomSource = RandomSource(), settings: JSONValue = [:], user: User? = nil
        ) {
            self.user = user
            self.clock = clock
            self.random = random
            self.settings = settings
        }
    #else
        /// An environment; each part defaults to the live one (system clock, unpredictable
        /// seed, built-in answers to host requests, no settings).
        public init(
            clock: any FusionClock = SystemClock(), random: RandomSource = RandomSource(),
            host: HostRequests = HostRequests(), settings: JSONValue = [:], user: User? = nil
        ) {
            self.user = user
            self.clock = clock
            self.random = random
            self.host = host
            self.settings = settings
        }
    #endif

    /// The real clock, an unpredictably seeded random source, built-in host answers.
    public static var live: Environment { Environment() }

    /// A boolean setting, or `defaultValue` when it is not given.
    public func setting(_ name: String, default defaultValue: Bool) -> Bool {
        if case .bool(let value)? = settings[name] { return value }
        return defaultValue
    }
}
