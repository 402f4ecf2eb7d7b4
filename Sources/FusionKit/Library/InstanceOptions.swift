/// The creation options of `fk_create_with_options`, checked.
public struct InstanceOptions: Sendable, Equatable {
    public enum ClockChoice: String, Sendable { case system, manual }

    public var state: JSONValue?
    /// The feature's `stateVersion` that `state` was saved at; nil: the current one.
    public var stateVersion: Int?
    public var seed: UInt64?
    public var clock: ClockChoice = .system
    public var requests: RequestMode = .builtin
    public var settings: JSONValue = [:]
    /// The signed-in user, as the host vouches for them; nil: nobody signed in.
    public var user: User?
    /// How many versions to keep for time travel (fk_history, fk_goto); 0 keeps none.
    public var history = 0
    /// A checkpoint to go on from (fk_checkpoint's JSON), instead of a state and a seed.
    public var checkpoint: Checkpoint?

    public init() {}

    /// The most versions `"history"` may ask for: a bound on what one instance can hold.
    public static let historyLimit = 100_000

    static let keys = ["state", "seed", "clock", "requests", "settings", "history", "stateVersion", "checkpoint", "user"]

    public init(json: JSONValue) throws(FusionError) {
        guard case .object(let members) = json else {
            throw FusionError(
                .invalidArgument,
                "options must be a JSON object with any of the keys \(Self.keys.joined(separator: ", ")); found \(json.kindDescription)")
        }
        for member in members {
            switch member.key {
            case "state":
                state = member.value
            case "stateVersion":
                guard let version = member.value.unsignedWhole.flatMap({ Int(exactly: $0) }), version >= 1 else {
                    throw FusionError(
                        .invalidArgument,
                        "option \"stateVersion\" must be the state version the state was saved at, a whole number from 1; found \(member.value.jsonText)"
                    )
                }
                stateVersion = version
            case "seed":
                if let number = member.value.unsignedWhole {
                    seed = number
                } else if let digits = member.value.stringValue, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let number = UInt64(digits), number > Int64.max
                {
                    seed = number  // one way to write each seed: a number below 2^63
                } else {
                    // A number written past Int64 was read as the nearest double, its last
                    // digits lost (two seeds would draw alike): from 2^63 on, a seed is a
                    // string of digits.
                    throw FusionError(
                        .invalidArgument,
                        "option \"seed\" must be an unsigned integer of 64 bits (from 2^63 on as a string of digits, e.g. \"18446744073709551615\": a JSON number that large loses its last digits); found \(member.value.jsonText)"
                    )
                }
            case "clock":
                guard let text = member.value.stringValue, let choice = ClockChoice(rawValue: text) else {
                    throw FusionError(.invalidArgument, "option \"clock\" must be \"system\" or \"manual\"; found \(member.value.jsonText)")
                }
                clock = choice
            case "requests":
                guard let text = member.value.stringValue, let mode = RequestMode(rawValue: text) else {
                    throw FusionError(
                        .invalidArgument, "option \"requests\" must be \"builtin\" or \"host\"; found \(member.value.jsonText)")
                }
                requests = mode
            case "settings":
                guard case .object = member.value else {
                    throw FusionError(.invalidArgument, "option \"settings\" must be an object; found \(member.value.kindDescription)")
                }
                settings = member.value
            case "history":
                guard let count = member.value.unsignedWhole.flatMap({ Int(exactly: $0) }), count <= Self.historyLimit else {
                    throw FusionError(
                        .invalidArgument,
                        "option \"history\" must be a whole number of versions to keep, from 0 to \(Self.historyLimit); found \(member.value.jsonText)"
                    )
                }
                history = count
            case "checkpoint":
                checkpoint = try Checkpoint(json: member.value)
            case "user":
                user = try User(option: member.value)
            default:
                throw FusionError(
                    .invalidArgument, "unknown option \"\(member.key)\"; the options are \(Self.keys.joined(separator: ", "))")
            }
        }
        if checkpoint != nil {
            if let other = ["state", "stateVersion", "seed"].first(where: { json[$0] != nil }) {
                throw FusionError(
                    .invalidArgument, "option \"checkpoint\" holds the state and the seed; \"\(other)\" cannot be given with it")
            }
            guard clock == .manual else {
                throw FusionError(
                    .invalidArgument, "option \"checkpoint\" is for an instance on the manual clock: give \"clock\": \"manual\" with it")
            }
            state = checkpoint?.state
            stateVersion = checkpoint?.stateVersion
        }
        if stateVersion != nil && state == nil {
            throw FusionError(
                .invalidArgument, "option \"stateVersion\" says which version \"state\" was saved at, but no \"state\" is given")
        }
    }

    #if !hasFeature(Embedded)
        /// The environment these options describe.
        public func makeEnvironment() -> Environment {
            if let checkpoint {
                return Environment(
                    clock: ManualClock(startingAt: .nanoseconds(Int64(clamping: checkpoint.clock))),
                    random: RandomSource(seed: checkpoint.seed, position: checkpoint.random),
                    host: HostRequests(mode: requests), settings: settings, user: user)
            }
            return Environment(
                clock: clock == .manual ? ManualClock() : SystemClock(),
                random: RandomSource(seed: seed),
                host: HostRequests(mode: requests),
                settings: settings,
                user: user)
        }
    #endif
}
