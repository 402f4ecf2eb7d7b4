/// What one call into a sandboxed plugin may use: run time and memory. A call past
/// either is stopped (`FK_ERR_PLUGIN_LIMIT`) and its instance is failed; the host and
/// every other instance go on (docs/plugin-libraries.md, "Native or sandboxed: which to ship").
public struct SandboxLimits: Sendable, Equatable, CustomStringConvertible {
    /// How long one call may run: 1 s by default. It is kept as fuel (one unit is about
    /// one WebAssembly operator): the interpreter's speed on this machine, measured once per
    /// process (`FuelRate`), turns it into the fuel each call is given.
    public var timeLimit: Duration
    /// How much linear memory one instance's module may have: 64 MiB by default. A
    /// `memory.grow` past it is refused, which a Swift module meets as a failed allocation
    /// and a trap; the host reports it as this limit.
    public var memoryLimit: Int
    /// Fuel per call, instead of `timeLimit`'s measured worth: for a budget that is the same
    /// on every machine (tests, reproducible runs). nil: from `timeLimit`.
    public var fuel: UInt64?

    public static let defaultTimeLimit: Duration = .seconds(1)
    public static let defaultMemoryLimit = 64 << 20

    public init(timeLimit: Duration = defaultTimeLimit, memoryLimit: Int = defaultMemoryLimit, fuel: UInt64? = nil) {
        self.timeLimit = timeLimit
        self.memoryLimit = memoryLimit
        self.fuel = fuel
    }

    /// The fuel one call is given.
    var fuelPerCall: UInt64 {
        if let fuel { return fuel }
        let (seconds, attoseconds) = timeLimit.components
        let wanted = Double(seconds) + Double(attoseconds) / 1e18
        return UInt64(max(1, min(Double(UInt64.max / 2), wanted * FuelRate.perSecond)))
    }

    public var description: String {
        let memory = memoryLimit % (1 << 20) == 0 ? "\(memoryLimit >> 20) MiB" : "\(memoryLimit) bytes"
        let time = fuel.map { "\($0) fuel" } ?? "\(timeLimit)"
        return "time \(time), memory \(memory)"
    }

    /// The longest time limit a call may be given (`duration(parsing:)` refuses more).
    public static let longestTimeLimit: Duration = .seconds(24 * 3600)
    /// The memory limits an instance may be given: one 64 KiB page up to 1 TiB (as
    /// `fk_sandbox_open` takes them; a 32-bit module reaches 4 GiB at the most).
    public static let memoryLimits = 65536...(1 << 40)

    /// Reads "1s", "250ms", "2.5s", "100us", "1ns", "2min", "1h" (a number alone is
    /// seconds); nil for anything else, or for a time not above 0 or above 24 hours.
    public static func duration(parsing text: String) -> Duration? {
        let units: [(String, Double)] = [
            ("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("ns", 1e-9), ("min", 60), ("s", 1), ("h", 3600)
        ]
        let (digits, scale) = units.first { text.hasSuffix($0.0) }.map { (text.dropLast($0.0.count), $0.1) } ?? (text[...], 1)
        guard let number = Double(digits), number > 0, number.isFinite else { return nil }
        let nanoseconds = number * scale * 1e9
        guard nanoseconds >= 1, nanoseconds <= Double(longestTimeLimit.components.seconds) * 1e9 else { return nil }
        return .nanoseconds(Int64(nanoseconds))
    }

    /// Reads "64MiB", "512KiB", "1GiB", "1TiB", "65536" (bytes); nil for anything else, or
    /// for a size outside `memoryLimits`.
    public static func bytes(parsing text: String) -> Int? {
        let units: [(String, Double)] = [
            ("TiB", 0x1p40), ("GiB", 0x1p30), ("MiB", 0x1p20), ("KiB", 0x1p10), ("T", 0x1p40), ("G", 0x1p30), ("M", 0x1p20),
            ("K", 0x1p10), ("B", 1)
        ]
        let (digits, scale) = units.first { text.hasSuffix($0.0) }.map { (text.dropLast($0.0.count), $0.1) } ?? (text[...], 1)
        guard let number = Double(digits), number.isFinite else { return nil }
        let bytes = number * scale
        guard bytes >= Double(memoryLimits.lowerBound), bytes <= Double(memoryLimits.upperBound) else { return nil }
        return Int(bytes)
    }
}
