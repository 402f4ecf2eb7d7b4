/// A JSON value as the host reads it from a library and writes it back.
///
/// Hosts cannot use FusionKit's codec (they see a library only through the C ABI), and
/// Foundation's JSONSerialization forgets the order of object members, which people
/// reading a state expect to match the feature's Swift code. So objects keep their
/// members in order, and numbers keep their text, so that a 64-bit integer a library
/// wrote comes back out unchanged.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's text as it appeared, already checked to be a JSON number.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in the order they were written. Duplicate keys are refused by the parser.
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)):
            // Same text, or the same value written differently ("1" and "1.0"); integers
            // are compared exactly, since a Double cannot hold every Int64.
            if a == b { return true }
            if let x = Int64(a), let y = Int64(b) { return x == y }
            guard let x = Double(a), let y = Double(b) else { return false }
            return x == y
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            // Member order does not change what an object means.
            guard a.count == b.count else { return false }
            for (key, value) in a {
                guard let other = b.first(where: { $0.key == key }), other.value == value else { return false }
            }
            return true
        default: return false
        }
    }

    public static func integer(_ value: some BinaryInteger) -> JSONValue { .number(String(value)) }

    /// The member of an object with this key; nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var objectValue: [(key: String, value: JSONValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The value of an integral number that fits an Int64; nil otherwise.
    public var int64Value: Int64? {
        if case .number(let text) = self { return Int64(text) }
        return nil
    }

    /// The JSON type's name, for messages: "string", "object", ...
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
