/// The ids of the clients' messages whose inputs were done lately (docs/web-protocol.md,
/// "Exactly once"), for a client that lost its connection before a reply to ask about:
/// at least the last `kept`, oldest first, each with what became of it (applied, or
/// refused by the feature, with the refusal). Trimmed once it holds twice that, so that
/// adding one on every input costs no more than an append.
public struct RecentMessageIDs: Sendable, Equatable {
    /// How many are kept at least.
    public static let kept = 256

    /// A feature's refusal of an input, as the client was told it.
    public struct Refusal: Sendable, Equatable {
        /// The library's name for the status, e.g. "FK_ERR_UNKNOWN_INPUT".
        public let status: String
        public let message: String

        public init(status: String, message: String) {
            self.status = status
            self.message = message
        }

        /// What a failed call said (the host's own words for a failure that is not a status).
        public init(_ error: FusionHostError) {
            if case .failed(let failure) = error {
                self.init(status: failure.statusName, message: failure.message)
            } else {
                self.init(status: "FK_ERR_INTERNAL", message: error.description)
            }
        }
    }

    /// What became of the input a message carried.
    public enum Outcome: Sendable, Equatable {
        case applied
        case refused(Refusal)
    }

    public struct Entry: Sendable, Equatable {
        public let id: JSONValue
        public var outcome: Outcome
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    public mutating func add(_ id: JSONValue, _ outcome: Outcome = .applied) {
        entries.append(Entry(id: id, outcome: outcome))
        if entries.count > 2 * Self.kept { entries.removeFirst(entries.count - Self.kept) }
    }

    /// The input of the latest message `id` was refused after all (it was added before
    /// it was applied).
    public mutating func refuse(_ id: JSONValue, _ refusal: Refusal) {
        guard let index = entries.lastIndex(where: { $0.id == id }) else { return }
        entries[index].outcome = .refused(refusal)
    }

    /// What became of the latest message `id`; nil if it is not among them.
    public func outcome(of id: JSONValue) -> Outcome? { entries.last { $0.id == id }?.outcome }

    public var isEmpty: Bool { entries.isEmpty }

    /// The last `kept`: what a checkpoint carries on.
    public var latest: ArraySlice<Entry> { entries.suffix(Self.kept) }

    /// The records that carry `latest` past a checkpoint: `applied` with the ids of those
    /// applied, `refused` with the others and their refusals (each left out when empty).
    var carried: [JournalRecord] {
        let latest = latest
        // (Not `? id : nil`: a JSONValue takes nil as JSON's null.)
        let applied = latest.filter { $0.outcome == .applied }.map(\.id)
        let refused = latest.compactMap { entry -> (JSONValue, Refusal)? in
            if case .refused(let refusal) = entry.outcome { return (entry.id, refusal) }
            return nil
        }
        return (applied.isEmpty ? [] : [.applied(applied)]) + (refused.isEmpty ? [] : [.refused(refused)])
    }
}
