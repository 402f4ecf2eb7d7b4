/// What an instance on a manual clock is, written down so that another instance can go
/// on from it exactly (fk_checkpoint, and the option `"checkpoint"` of
/// fk_create_with_options): the state and the versions, the clock's time and where the
/// random source is in its sequence. Effects are not in it: the feature starts again
/// those it says it can (`Feature.restartEffects(for:)`), and a checkpoint is taken only
/// when no other work is under way.
public struct Checkpoint: Sendable, Equatable {
    public var state: JSONValue
    /// The feature's `stateVersion` when the checkpoint was taken.
    public var stateVersion: Int
    /// The instance's version: the new instance starts at it.
    public var version: UInt64
    /// The manual clock's time, in nanoseconds.
    public var clock: UInt64
    public var seed: UInt64
    /// The random source's place in the seed's sequence (`RandomSource.position`).
    public var random: UInt64

    public init(state: JSONValue, stateVersion: Int, version: UInt64, clock: UInt64, seed: UInt64, random: UInt64) {
        self.state = state
        self.stateVersion = stateVersion
        self.version = version
        self.clock = clock
        self.seed = seed
        self.random = random
    }

    static let keys = ["state", "stateVersion", "version", "clock", "seed", "random"]

    /// The largest `"version"` a checkpoint is read with: 2^53 - 1.
    public static let versionLimit: UInt64 = (1 << 53) - 1

    /// A checkpoint read back from its JSON; every key is required.
    public init(json: JSONValue) throws(FusionError) {
        guard case .object(let members) = json else {
            throw FusionError(
                .invalidArgument, "option \"checkpoint\" must be an object (what fk_checkpoint wrote); found \(json.kindDescription)")
        }
        func whole(_ key: String) throws(FusionError) -> UInt64 {
            // Past 2^63 - 1 the number is read to say what is past its end, not refused unread.
            let large: UInt64? =
                if case .double(let d)? = json[key], d >= 0, d < 18_446_744_073_709_551_616, d == d.rounded() { UInt64(d) } else { nil }
            guard let value = json[key]?.unsignedWhole ?? large else {
                throw FusionError(
                    .invalidArgument,
                    "option \"checkpoint\" needs \"\(key)\", an unsigned integer; found \(json[key]?.jsonText ?? "nothing")")
            }
            return value
        }
        if let unknown = members.first(where: { !Self.keys.contains($0.key) }) {
            throw FusionError(
                .invalidArgument,
                "option \"checkpoint\" has an unknown key \"\(unknown.key)\"; its keys are \(Self.keys.joined(separator: ", "))")
        }
        guard let state = json["state"] else { throw FusionError(.invalidArgument, "option \"checkpoint\" needs \"state\"") }
        let stateVersion = try whole("stateVersion")
        guard stateVersion >= 1, stateVersion <= UInt64(Int.max) else {
            throw FusionError(.invalidArgument, "option \"checkpoint\" needs \"stateVersion\" from 1")
        }
        // The generator's words are 64-bit: written as decimal text, which JSON numbers
        // (doubles to most readers) would round.
        func word(_ key: String) throws(FusionError) -> UInt64 {
            guard let text = json[key]?.stringValue, let value = UInt64(text) else {
                throw FusionError(
                    .invalidArgument,
                    "option \"checkpoint\" needs \"\(key)\", an unsigned 64-bit integer written as a string of digits; found \(json[key]?.jsonText ?? "nothing")"
                )
            }
            return value
        }
        let clock = try whole("clock")
        guard clock <= UInt64(Int64.max) else {
            throw FusionError(
                .invalidArgument,
                "option \"checkpoint\" has \"clock\" \(clock), past the manual clock's end (9223372036854775807 ns, about 292 years): no instance's clock reaches it"
            )
        }
        // Versions are read as JSON numbers by every front end, and a page's JavaScript
        // reads them exactly only below 2^53; an instance never counts that far (2^53
        // changes), but a checkpoint made up by hand could start there, and one past
        // 2^63 - 1 was written back negative by fk_history and fk_state_patch.
        let version = try whole("version")
        guard version <= Checkpoint.versionLimit else {
            throw FusionError(
                .invalidArgument,
                "option \"checkpoint\" has \"version\" \(version), past the largest version a checkpoint may start from (\(Checkpoint.versionLimit), 2^53 - 1: what a JSON reader reads exactly)"
            )
        }
        self.init(
            state: state, stateVersion: Int(stateVersion), version: version, clock: clock,
            seed: try word("seed"), random: try word("random"))
    }

    public var json: JSONValue {
        [
            "state": state,
            "stateVersion": .integer(stateVersion),
            // A version past Int.max takes 2^63 changes; a clock stops at Int64.max (ManualClock.end).
            "version": .integer(Int(clamping: version)),
            "clock": .integer(Int(clamping: clock)),
            "seed": .string(String(seed)),
            "random": .string(String(random))
        ]
    }
}
