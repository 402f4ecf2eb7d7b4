/// Why a journal could not be opened, read or written, naming the file.
public struct JournalError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    /// The journal's session is held by another bridge now (its epoch moved on): this
    /// process may never write to it again (docs/deploy.md, "Fencing").
    public let fenced: Bool
    /// The write may have landed all the same: the store did not answer (a timeout, a
    /// connection lost after the statement went out). The copy of the session that made it
    /// can no longer tell what its journal holds; only a fresh copy, read back after the
    /// epoch moved on, can (docs/deploy.md, "Fencing").
    public let uncertain: Bool

    public init(path: String, _ reason: String, fenced: Bool = false, uncertain: Bool = false) {
        self.path = path
        self.reason = reason
        self.fenced = fenced
        self.uncertain = uncertain
    }

    public var description: String { "journal \(path): \(reason)" }

    /// A reason without a path yet, for the line parser.
    struct Reason: Error, ExpressibleByStringLiteral {
        let text: String
        init(_ text: String) { self.text = text }
        init(stringLiteral text: String) { self.text = text }
    }
}
