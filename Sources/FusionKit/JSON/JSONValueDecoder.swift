/// Decodes `Decodable` values from a parsed `JSONValue`.
///
/// Errors are `JSONCodingError`s naming the path and what was expected and found, in
/// words a front-end developer can act on ("at $.networkTapped: missing field \"id\"").
public struct JSONValueDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        do {
            return try ValueDecoder(value: value, codingPath: []).decodeValue(T.self)
        } catch let error as DecodingError {
            throw JSONCodingError(decodingError: error)
        }
    }
}

extension JSONCodingError {
    /// Turns the errors that synthesized `init(from:)` code throws into our wording.
    init(decodingError: DecodingError) {
        switch decodingError {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            self.init(context.codingPath, context.debugDescription)
        case .keyNotFound(let key, let context):
            self.init(context.codingPath, "missing field \"\(key.stringValue)\"")
        @unknown default:
            self.init(path: [], reason: "\(decodingError)")
        }
    }
}

private final class ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The type being decoded here: asked, only when a field is missing, whether that
    /// field is one it derives (`DerivedFields`).
    var owner: Any.Type?

    init(value: JSONValue, codingPath: [any CodingKey]) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            // The payload of an enum case with one unlabeled value comes bare
            // (`{"setValue": 5}`); the synthesized code asks for it under "_0".
            if Key(stringValue: "_0") != nil {
                return KeyedDecodingContainer(
                    KeyedContainer<Key>(members: [JSONMember("_0", value)], codingPath: codingPath, owner: owner))
            }
            throw JSONCodingError(codingPath, "expected an object, found \(value.kindDescription)")
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath, owner: owner))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw JSONCodingError(codingPath, "expected an array, found \(value.kindDescription)")
        }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(decoder: self)
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // Primitive fast paths avoid a trip through the container machinery.
        if T.self == String.self { return try Primitive.string(value, codingPath) as! T }
        if T.self == Int.self { return try Primitive.integer(value, Int.self, codingPath) as! T }
        if T.self == Bool.self { return try Primitive.bool(value, codingPath) as! T }
        if T.self == Double.self { return try Primitive.double(value, codingPath) as! T }
        owner = T.self
        return try T(from: self)
    }
}

/// Conversions from JSON scalars, shared by every container.
private enum Primitive {
    static func string(_ value: JSONValue, _ path: [any CodingKey]) throws -> String {
        guard case .string(let s) = value else { throw mismatch("a string", value, path) }
        return s
    }

    static func bool(_ value: JSONValue, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch("a boolean", value, path) }
        return b
    }

    static func double(_ value: JSONValue, _ path: [any CodingKey]) throws -> Double {
        switch value {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        default: throw mismatch("a number", value, path)
        }
    }

    static func integer<T: FixedWidthInteger>(_ value: JSONValue, _ type: T.Type, _ path: [any CodingKey]) throws -> T {
        switch value {
        case .integer(let i):
            guard let exact = T(exactly: i) else { throw JSONCodingError(path, "\(i) does not fit in \(T.self)") }
            return exact
        case .double(let d):
            guard let exact = T(exactly: d) else {
                throw JSONCodingError(path, "expected an integer for \(T.self), found \(d)")
            }
            return exact
        default:
            throw mismatch("an integer", value, path)
        }
    }

    static func float(_ value: JSONValue, _ path: [any CodingKey]) throws -> Float {
        let d = try double(value, path)
        let f = Float(d)
        guard f.isFinite else { throw JSONCodingError(path, "\(d) does not fit in Float") }
        return f
    }

    static func mismatch(_ expected: String, _ found: JSONValue, _ path: [any CodingKey]) -> JSONCodingError {
        JSONCodingError(path, "expected \(expected), found \(found.kindDescription)")
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [JSONMember]
    let codingPath: [any CodingKey]
    let owner: Any.Type?

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    private func lookup(_ key: Key) -> JSONValue? {
        let name = key.stringValue
        for member in members where member.key == name { return member.value }
        // A case's single unlabeled value is the whole object (see `container`).
        if name == "_0" { return .object(members) }
        return nil
    }

    /// The field's value; for a missing field the owner derives, `empty` (recomputed
    /// after decoding by the feature).
    private func require(_ key: Key, orIfDerived empty: JSONValue = .null) throws -> JSONValue {
        if let value = lookup(key) { return value }
        if isDerived(key) { return empty }
        throw JSONCodingError(codingPath, "missing field \"\(key.stringValue)\"")
    }

    private func isDerived(_ key: Key) -> Bool {
        guard let derived = owner as? any DerivedFields.Type else { return false }
        return derived.derivedFields.contains(key.stringValue)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        lookup(key).map { $0 == .null } ?? true
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try Primitive.bool(require(key, orIfDerived: false), codingPath + [key])
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try Primitive.string(require(key, orIfDerived: ""), codingPath + [key])
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try Primitive.double(require(key, orIfDerived: 0), codingPath + [key])
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try Primitive.float(require(key, orIfDerived: 0), codingPath + [key])
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try Primitive.integer(require(key, orIfDerived: 0), type, codingPath + [key])
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if lookup(key) == nil && isDerived(key) {
            // A missing derived field of another type: the first empty value it reads.
            for empty: JSONValue in [.null, [], [:]] {
                if let value = try? ValueDecoder(value: empty, codingPath: codingPath + [key]).decodeValue(T.self) { return value }
            }
        }
        return try ValueDecoder(value: require(key), codingPath: codingPath + [key]).decodeValue(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: require(key), codingPath: codingPath + [key]).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: require(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let value = members.first(where: { $0.key == "super" })?.value ?? .null
        return ValueDecoder(value: value, codingPath: codingPath + [AnyCodingKey(stringValue: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: lookup(key) ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        let path = codingPath + [AnyCodingKey(intValue: currentIndex)]
        guard currentIndex < elements.count else {
            throw JSONCodingError(path, "the array has only \(elements.count) elements")
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count else { return false }
        if elements[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let (v, p) = try next(); return try Primitive.bool(v, p) }
    mutating func decode(_ type: String.Type) throws -> String { let (v, p) = try next(); return try Primitive.string(v, p) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (v, p) = try next(); return try Primitive.double(v, p) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (v, p) = try next(); return try Primitive.float(v, p) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (v, p) = try next(); return try Primitive.integer(v, type, p) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (v, p) = try next(); return try Primitive.integer(v, type, p) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (v, p) = try next(); return try Primitive.integer(v, type, p) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (v, p) = try next(); return try Primitive.integer(v, type, p) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (v, p) = try next(); return try Primitive.integer(v, type, p) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (v, p) = try next(); return try Primitive.integer(v, type, p) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (v, p) = try next(); return try Primitive.integer(v, type, p) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (v, p) = try next(); return try Primitive.integer(v, type, p) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (v, p) = try next(); return try Primitive.integer(v, type, p) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (v, p) = try next(); return try Primitive.integer(v, type, p) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (v, p) = try next()
        return try ValueDecoder(value: v, codingPath: p).decodeValue(T.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (v, p) = try next()
        return try ValueDecoder(value: v, codingPath: p).container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (v, p) = try next()
        return try ValueDecoder(value: v, codingPath: p).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (v, p) = try next()
        return ValueDecoder(value: v, codingPath: p)
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    private var value: JSONValue { decoder.value }

    init(decoder: ValueDecoder) { self.decoder = decoder }

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try Primitive.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Primitive.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Primitive.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try Primitive.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try Primitive.integer(value, type, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Primitive.integer(value, type, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Primitive.integer(value, type, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Primitive.integer(value, type, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Primitive.integer(value, type, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Primitive.integer(value, type, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Primitive.integer(value, type, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Primitive.integer(value, type, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Primitive.integer(value, type, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Primitive.integer(value, type, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(T.self) }
}
