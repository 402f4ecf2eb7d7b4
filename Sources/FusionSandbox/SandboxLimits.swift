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

    /// Reads "1s", "250ms", "2.5s", "100us" (a number alone is seconds).
    public static func duration(parsing text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("ns", 1e-9), ("s", 1), ("m", 60)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let number = Double(text.dropLast(suffix.count)), number > 0, number.isFinite else { return nil }
            return .nanoseconds(Int64(min(number * scale * 1e9, 1e18)))
        }
        guard let number = Double(text), number > 0, number.isFinite else { return nil }
        return .nanoseconds(Int64(min(number * 1e9, 1e18)))
    }

    /// Reads "64MiB", "512KiB", "1GiB", "65536" (bytes); at least one 64 KiB page.
    public static func bytes(parsing text: String) -> Int? {
        let units: [(String, Int)] = [
            ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10), ("B", 1)
        ]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let number = Double(text.dropLast(suffix.count)), number > 0, number * Double(scale) < 1e15 else { return nil }
            return Int(number * Double(scale)) >= 65536 ? Int(number * Double(scale)) : nil
        }
        guard let number = Int(text), number >= 65536 else { return nil }
        return number
    }
}
