/// Reading a value of an expected kind: each gives nil for any other kind, so that a
/// reader can say what it expected instead of trapping.
extension JSONValue {
    /// The member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key == key { return member.value }
        return nil
    }

    /// The members of an object, in order.
    public var members: [JSONMember]? {
        if case .object(let members) = self { return members }
        return nil
    }

    // One accessor per case, each the same two lines: a table, alike on purpose.
    /// The elements of an array.
    public var elements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// An integer as written (`3`, not `3.0`, which is a double).
    public var integerValue: Int? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// A whole number however JSON writes it: `3`, `3.0` and `3e0` are one number to
    /// RFC 8259. Nil for a fraction, anything not a number, or one outside `Int`.
    public var wholeValue: Int? {
        switch self {
        case .integer(let value): return value
        // Int(exactly:): nil past Int's range, whichever it is (32 bits in WebAssembly).
        case .double(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// Any number, as a `Double` (integers beyond 2^53 rounded to the nearest).
    public var numberValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }
}
