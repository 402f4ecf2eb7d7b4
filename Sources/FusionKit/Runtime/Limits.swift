import CFusionLimits

/// The limits of `fk_limit()` (include/fusionkit.h): how much one library takes from
/// its host before it says no, so that a hostile or runaway caller gets an error
/// status instead of exhausting memory or the stack. Each has a default, a hard
/// maximum a setting is clamped to, and holds for every instance of the library.
///
/// The values live in C atomics (CFusionLimits): two are read on every input.
public enum FusionLimit: Int32, CaseIterable, Sendable {
    /// FK_LIMIT_LENGTH: bytes of any one text argument (input, state, options, response, name).
    case length = 0
    /// FK_LIMIT_JSON_DEPTH: nesting of arrays and objects in JSON the library reads.
    case jsonDepth = 1
    /// FK_LIMIT_SUBSCRIBERS: subscriptions of one instance at a time.
    case subscribers = 2
    /// FK_LIMIT_HOST_REQUESTS: host requests of one instance open at a time.
    case hostRequests = 3
    /// FK_LIMIT_INSTANCES: live instances of the library.
    case instances = 4

    /// The value in force.
    @inlinable public var value: Int { Int(fusion_limit_get(rawValue)) }

    // One switch per property, each naming every limit once: a table in the header's order.
    /// The value a library starts with.
    public var defaultValue: Int {
        switch self {
        case .length: return Int(FUSION_LIMIT_LENGTH_DEFAULT)
        case .jsonDepth: return Int(FUSION_LIMIT_DEPTH_DEFAULT)
        case .subscribers: return Int(FUSION_LIMIT_SUBSCRIBERS_DEFAULT)
        case .hostRequests: return Int(FUSION_LIMIT_HOST_REQUESTS_DEFAULT)
        case .instances: return Int(FUSION_LIMIT_INSTANCES_DEFAULT)
        }
    }

    /// The most a setting can ask for; larger settings are clamped to it. For the
    /// depth this is what the stack is known to bear (`JSONParser.maximumDepth`).
    public var hardMaximum: Int {
        switch self {
        case .length: return Int(FUSION_LIMIT_LENGTH_MAX)
        case .jsonDepth: return Int(FUSION_LIMIT_DEPTH_MAX)
        case .subscribers: return Int(FUSION_LIMIT_SUBSCRIBERS_MAX)
        case .hostRequests: return Int(FUSION_LIMIT_HOST_REQUESTS_MAX)
        case .instances: return Int(FUSION_LIMIT_INSTANCES_MAX)
        }
    }

    /// The constant's name in the header, for messages.
    public var symbol: String {
        switch self {
        case .length: return "FK_LIMIT_LENGTH"
        case .jsonDepth: return "FK_LIMIT_JSON_DEPTH"
        case .subscribers: return "FK_LIMIT_SUBSCRIBERS"
        case .hostRequests: return "FK_LIMIT_HOST_REQUESTS"
        case .instances: return "FK_LIMIT_INSTANCES"
        }
    }

    /// Sets the limit (clamped to 0...hardMaximum) and returns the value it had.
    @discardableResult
    public func set(_ newValue: Int) -> Int {
        Int(fusion_limit_exchange(rawValue, Int64(min(max(newValue, 0), hardMaximum))))
    }

    /// The error for going past it, e.g. "the input is 20000000 bytes; the limit
    /// FK_LIMIT_LENGTH is 16777216 (see fk_limit())".
    public func exceeded(_ what: String) -> FusionError {
        FusionError(.limitExceeded, "\(what); the limit \(symbol) is \(value) (raise it with fk_limit())")
    }
}

/// The live instances of this library, counted against `FusionLimit.instances`.
public enum LiveInstances {
    /// Counts one more instance, or throws when the limit is reached.
    public static func reserve() throws(FusionError) {
        let limit = FusionLimit.instances.value
        let before = fusion_instances_reserve(Int64(limit))
        if before >= Int64(limit) {
            throw FusionLimit.instances.exceeded("\(before) instances are live")
        }
    }

    /// One fewer: destroyed, or a reservation not used.
    public static func release() { fusion_instances_release() }
}
