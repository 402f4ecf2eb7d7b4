/// A parsed JSON document: what a library reads inputs into and writes states from, and
/// what a host reads manifests, states and scenario files as.
///
/// Objects keep their members in document order (the order Swift's synthesized
/// `Encodable` writes fields in), which is what front ends and diffs expect to see.
///
/// Numbers: one written without fraction or exponent that fits in `Int` (64 bits on every
/// platform FusionKit builds for) is an `.integer`, exactly. Any other number is a
/// `.double`, the nearest one: `1.0` and `1e2` are doubles, and so is an integer beyond
/// the 64-bit range, such as `18446744073709551615` (`UInt64.max`), which loses its last
/// digits (it is written back as `1.8446744073709552e+19`). A number too large for a
/// `Double` (`1e400`) is a parse error.
///
/// `==` compares structure: member order and `.integer(1)` against `.double(1)` count.
/// `isEquivalent(to:)` compares what two documents mean, as JSON does.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int`.
    case integer(Int)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The kind of value, in the words error messages use ("a string", "an object").
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
