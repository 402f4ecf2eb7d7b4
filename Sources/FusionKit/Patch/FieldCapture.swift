/// What an `Encodable` value is made of, one level deep, without encoding anything:
/// its fields (keyed), its elements (unkeyed) or its single value. The differ walks
/// two values of one type through this to find what changed.
indirect enum Captured {
    case keyed([(key: String, value: Part)])
    case unkeyed([Part])
    case single(Part)
    /// The value asked for no container at all, or did something the differ does not follow.
    case opaque

    indirect enum Part {
        case null
        case value(any Encodable)
        case nested(Captured)
    }

    static func capture<T: Encodable>(_ value: T) -> Captured {
        let capturer = FieldCapturer()
        do {
            try value.encode(to: capturer)
        } catch {
            return .opaque
        }
        return capturer.result
    }
}

private final class Node {
    var keyed: [(key: String, value: Captured.Part)]?
    var nestedKeyed: [(key: String, node: Node)] = []
    var unkeyed: [Captured.Part]?
    var single: Captured.Part?
    var opaque = false

    var result: Captured {
        if opaque { return .opaque }
        if var keyed {
            for (key, node) in nestedKeyed {
                if let index = keyed.firstIndex(where: { $0.key == key }) { keyed[index].value = .nested(node.result) }
            }
            // A case with one unlabeled value is written bare: describe it the same way.
            if keyed.count == 1, keyed[0].key == "_0" { return unwrap(keyed[0].value) }
            return .keyed(keyed)
        }
        if let unkeyed { return .unkeyed(unkeyed) }
        if let single { return .single(single) }
        return .opaque
    }

    private func unwrap(_ part: Captured.Part) -> Captured {
        switch part {
        case .nested(let inner): return inner
        default: return .single(part)
        }
    }
}

private final class FieldCapturer: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let node = Node()

    var result: Captured { node.result }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.keyed == nil { node.keyed = [] }
        return KeyedEncodingContainer(CaptureKeyed<Key>(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.unkeyed = node.unkeyed ?? []
        return CaptureUnkeyed(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CaptureSingle(node: node)
    }
}

private struct CaptureKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey] { [] }

    private func set(_ key: Key, _ part: Captured.Part) {
        node.keyed?.append((key.stringValue, part))
    }

    mutating func encodeNil(forKey key: Key) throws { set(key, .null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { set(key, .value(value)) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { set(key, .value(value)) } else { set(key, .null) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { set(key, value.map { .value($0) } ?? .null) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<
        NestedKey
    > {
        let child = Node()
        child.keyed = []
        set(key, .null)
        node.nestedKeyed.append((key.stringValue, child))
        return KeyedEncodingContainer(CaptureKeyed<NestedKey>(node: child))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        node.opaque = true
        return CaptureUnkeyed(node: Node())
    }

    mutating func superEncoder() -> any Encoder {
        node.opaque = true
        return FieldCapturer()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        node.opaque = true
        return FieldCapturer()
    }
}

private struct CaptureUnkeyed: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey] { [] }
    var count: Int { node.unkeyed?.count ?? 0 }

    mutating func encodeNil() throws { node.unkeyed?.append(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { node.unkeyed?.append(.value(value)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        node.opaque = true
        let other = Node()
        other.keyed = []
        return KeyedEncodingContainer(CaptureKeyed<NestedKey>(node: other))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        node.opaque = true
        return CaptureUnkeyed(node: Node())
    }

    mutating func superEncoder() -> any Encoder {
        node.opaque = true
        return FieldCapturer()
    }
}

private struct CaptureSingle: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws { node.single = .null }
    mutating func encode<T: Encodable>(_ value: T) throws { node.single = .value(value) }
}
