/// Why a byte buffer is not a JSON document, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The bytes are not valid UTF-8.
        case invalidUTF8
        /// The buffer is empty or holds only whitespace.
        case empty
        /// The bytes are UTF-8 but not JSON.
        case syntax
    }

    public let kind: Kind
    /// Byte offset of the problem, from 0.
    public let offset: Int
    /// 1-based line and column (column counted in bytes) of the problem.
    public let line: Int
    public let column: Int
    /// What was wrong, without the position (for example "expected ',' or '}' after an object member").
    public let reason: String

    public var description: String {
        switch kind {
        case .empty: return reason
        case .invalidUTF8: return "\(reason) at byte \(offset)"
        case .syntax: return "malformed JSON at line \(line), column \(column): \(reason)"
        }
    }
}
