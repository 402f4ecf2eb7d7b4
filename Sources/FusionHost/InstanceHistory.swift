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
        guard let limit = json["limit"]?.int64Value, let version = json["version"]?.int64Value,
              let list = json["entries"]?.arrayValue else { return nil }
        var entries: [Entry] = []
        for item in list {
            guard let version = item["version"]?.int64Value, let cause = item["cause"]?.stringValue else { return nil }
            entries.append(Entry(version: UInt64(version), cause: cause, input: item["input"],
                                 restored: item["restored"]?.int64Value.map(UInt64.init)))
        }
        self.limit = Int(limit)
        self.version = UInt64(version)
        self.entries = entries
    }
}
