/// Why a journal could not be opened, read or written, naming the file.
public struct JournalError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "journal \(path): \(reason)" }

    /// A reason without a path yet, for the line parser.
    struct Reason: Error, ExpressibleByStringLiteral {
        let text: String
        init(_ text: String) { self.text = text }
        init(stringLiteral text: String) { self.text = text }
    }
}
