/// The ids of the clients' messages whose inputs were applied lately (docs/web-protocol.md,
/// "Exactly once"), for a client that lost its connection before a reply to ask about:
/// at least the last `kept`, oldest first. Trimmed once it holds twice that, so that
/// adding one on every input costs no more than an append.
public struct RecentMessageIDs: Sendable, Equatable {
    /// How many are kept at least.
    public static let kept = 256

    public private(set) var ids: [JSONValue] = []

    public init() {}

    public mutating func add(_ id: JSONValue) {
        ids.append(id)
        if ids.count > 2 * Self.kept { ids.removeFirst(ids.count - Self.kept) }
    }

    public func contains(_ id: JSONValue) -> Bool { ids.contains(id) }

    /// The last `kept`: what a checkpoint carries on.
    public var latest: [JSONValue] { Array(ids.suffix(Self.kept)) }
}
