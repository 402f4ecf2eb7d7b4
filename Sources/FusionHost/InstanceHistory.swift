/// The versions an instance keeps for time travel, as `fk_history` lists them.
public struct InstanceHistory: Sendable, Equatable {
    /// One kept version and what made it.
    public struct Entry: Sendable, Equatable {
        public var version: UInt64
        /// "start", "input", "effect", "response" or "goto".
        public var cause: String
        /// For an input: the input as it was sent.
        public var input: JSONValue?
        /// For a goto: the version whose state was restored.
        public var restored: UInt64?
    }

    /// How many versions the instance keeps (its option "history").
    public var limit: Int
    /// The current version.
    public var version: UInt64
    /// Oldest first; the last is the current version.
    public var entries: [Entry]

    /// Reads fk_history's JSON; nil when it is not that shape.
    init?(json: JSONValue) {
        // Versions are unsigned: a negative one makes the history unreadable, not a trap.
        func version(_ value: JSONValue?) -> UInt64? { value?.integerValue.flatMap(UInt64.init(exactly:)) }
        guard let limit = json["limit"]?.integerValue, let current = version(json["version"]),
            let list = json["entries"]?.elements
        else { return nil }
        var entries: [Entry] = []
        for item in list {
            guard let itemVersion = version(item["version"]), let cause = item["cause"]?.stringValue else { return nil }
            entries.append(Entry(version: itemVersion, cause: cause, input: item["input"], restored: version(item["restored"])))
        }
        self.limit = limit
        self.version = current
        self.entries = entries
    }
}
