/// Encodes `Encodable` values into a `JSONValue` tree.
///
/// Containers are reference nodes while encoding, because `Encoder` lets code write
/// into a nested container after creating it; the tree is frozen into values at the end.
public struct JSONValueEncoder {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = ValueEncoder(codingPath: [])
        try root.encodeValue(value)
        guard let result = root.node?.frozen else {
            throw JSONCodingError(path: [], reason: "\(T.self) encoded no value")
        }
        return result
    }

    /// Encodes straight to compact UTF-8 JSON.
    public func encodeBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        JSONWriter.serialize(try encode(value))
    }
}

/// A value under construction.
final class EncodingNode {
    enum Content {
        case value(JSONValue)
        case object([(String, EncodingNode)])
        case array([EncodingNode])
    }
    var content: Content

    init(_ content: Content) { self.content = content }

    var frozen: JSONValue {
        switch content {
        case .value(let v): return v
        case .object(let members) where members.count == 1 && members[0].0 == "_0":
            // An enum case with one unlabeled value: written as the value itself,
            // `{"connect": {...}}`, as serde writes a newtype variant.
            return members[0].1.frozen
        case .object(let members): return .object(members.map { JSONMember($0.0, $0.1.frozen) })
        case .array(let elements): return .array(elements.map(\.frozen))
        }
    }

    func set(_ key: String, _ node: EncodingNode) {
        guard case .object(var members) = content else { return }
        content = .value(.null)  // drop the reference so the append below does not copy
        if let i = members.firstIndex(where: { $0.0 == key }) {
            members[i].1 = node
        } else {
            members.append((key, node))
        }
        content = .object(members)
    }

    func append(_ node: EncodingNode) {
        guard case .array(var elements) = content else { return }
        content = .value(.null)
        elements.append(node)
        content = .array(elements)
    }
}

private final class ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var node: EncodingNode?

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    // The keyed and unkeyed containers are made alike (reuse the node, or make one): Encoder's shape.
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: EncodingNode
        if let existing = node, case .object = existing.content {
            object = existing
        } else {
            object = EncodingNode(.object([]))
            node = object
        }
        return KeyedEncodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodingNode
        if let existing = node, case .array = existing.content {
            array = existing
        } else {
            array = EncodingNode(.array([]))
            node = array
        }
        return UnkeyedContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(encoder: self)
    }

    func encodeValue<T: Encodable>(_ value: T) throws {
        node = try Scalars.node(for: value, codingPath)
    }
}

/// Turns a value into a node: scalars directly, everything else through its `encode(to:)`.
private enum Scalars {
    static func node<T: Encodable>(for value: T, _ path: [any CodingKey]) throws -> EncodingNode {
        if let scalar = try scalar(value, path) { return EncodingNode(.value(scalar)) }
        let encoder = ValueEncoder(codingPath: path)
        try value.encode(to: encoder)
        // A type that encodes nothing at all (an empty struct with custom code) is an empty object.
        return encoder.node ?? EncodingNode(.object([]))
    }

    static func scalar<T: Encodable>(_ value: T, _ path: [any CodingKey]) throws -> JSONValue? {
        switch value {
        case let v as String: return .string(v)
        case let v as Int: return .integer(v)
        case let v as Bool: return .bool(v)
        case let v as Double: return try double(v, path)
        case let v as Float: return try double(Double(v), path)
        case let v as Int8: return .integer(Int(v))
        case let v as Int16: return .integer(Int(v))
        case let v as Int32: return .integer(Int(v))
        case let v as Int64: return .integer(Int(v))
        case let v as UInt8: return .integer(Int(v))
        case let v as UInt16: return .integer(Int(v))
        case let v as UInt32: return .integer(Int(v))
        case let v as UInt: return unsigned(UInt64(v))
        case let v as UInt64: return unsigned(v)
        default: return nil
        }
    }

    static func unsigned(_ v: UInt64) -> JSONValue {
        if let i = Int(exactly: v) { return .integer(i) }
        return .double(Double(v))
    }

    static func double(_ v: Double, _ path: [any CodingKey]) throws -> JSONValue {
        guard v.isFinite else { throw JSONCodingError(path, "\(v) cannot be written as JSON") }
        return .double(v)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { object.set(key.stringValue, EncodingNode(.value(.null))) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { object.set(key.stringValue, EncodingNode(.value(.bool(value)))) }
    mutating func encode(_ value: String, forKey key: Key) throws { object.set(key.stringValue, EncodingNode(.value(.string(value)))) }
    mutating func encode(_ value: Int, forKey key: Key) throws { object.set(key.stringValue, EncodingNode(.value(.integer(value)))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.set(key.stringValue, try Scalars.node(for: value, codingPath + [key]))
    }

    // Absent optionals are written as null rather than left out, so that every state
    // has every field and front ends can rely on the shape.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, key) }

    private mutating func encodeOptional<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<
        NestedKey
    > {
        let child = EncodingNode(.object([]))
        object.set(key.stringValue, child)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingNode(.array([]))
        object.set(key.stringValue, child)
        return UnkeyedContainer(array: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        slotEncoder(named: "super", path: codingPath + [AnyCodingKey(stringValue: "super")])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        slotEncoder(named: key.stringValue, path: codingPath + [key])
    }

    private func slotEncoder(named name: String, path: [any CodingKey]) -> any Encoder {
        let slot = EncodingNode(.value(.null))
        object.set(name, slot)
        return SlotEncoder(slot: slot, codingPath: path)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let array: EncodingNode
    let codingPath: [any CodingKey]

    var count: Int {
        if case .array(let elements) = array.content { return elements.count }
        return 0
    }

    private var nextPath: [any CodingKey] { codingPath + [AnyCodingKey(intValue: count)] }

    mutating func encodeNil() throws { array.append(EncodingNode(.value(.null))) }
    mutating func encode<T: Encodable>(_ value: T) throws { array.append(try Scalars.node(for: value, nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingNode(.object([]))
        let path = nextPath
        array.append(child)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = EncodingNode(.array([]))
        let path = nextPath
        array.append(child)
        return UnkeyedContainer(array: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let placeholder = EncodingNode(.value(.null))
        let path = nextPath
        array.append(placeholder)
        return SlotEncoder(slot: placeholder, codingPath: path)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.node = EncodingNode(.value(.null)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}

/// An encoder that writes its single result into a given node.
private final class SlotEncoder: Encoder, SingleValueEncodingContainer {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let slot: EncodingNode

    init(slot: EncodingNode, codingPath: [any CodingKey]) {
        self.slot = slot
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = slot.content {} else { slot.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(object: slot, codingPath: codingPath))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.content {} else { slot.content = .array([]) }
        return UnkeyedContainer(array: slot, codingPath: codingPath)
    }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }
    func encodeNil() throws { slot.content = .value(.null) }
    func encode<T: Encodable>(_ value: T) throws { slot.content = try Scalars.node(for: value, codingPath).content }
}
