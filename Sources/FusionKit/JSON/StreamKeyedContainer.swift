// DoubleText and JSONEscaping, inlined per field.
@_spi(FusionKit) import FusionJSON

struct StreamKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: StreamWriter
    let frame: Int
    /// Where the members are written down while recording (see `EncodeRecord`).
    let record: EncodeRecord?
    var codingPath: [any CodingKey] {
        writer.broken = true
        return []
    }

    // Each call is recorded once with the type it was given (T? for encodeIfPresent),
    // then written by a `put` that records nothing.

    mutating func encodeNil(forKey key: Key) throws {
        record?.unusual = true  // synthesized code uses encodeIfPresent
        try putNil(key)
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { record?.add(key, value); try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { record?.add(key, value); try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { record?.add(key, value); try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { record?.add(key, value); try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { record?.add(key, value); try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { record?.add(key, value); try putInteger(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { record?.add(key, value); try putInteger(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { record?.add(key, value); try putInteger(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { record?.add(key, value); try putInteger(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { record?.add(key, value); try putInteger(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { record?.add(key, value); try putInteger(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { record?.add(key, value); try putInteger(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { record?.add(key, value); try putInteger(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { record?.add(key, value); try put(value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { record?.add(key, value); try putNested(value, key) }

    // Absent optionals are written as null, as JSONValueEncoder does.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        record?.add(key, value); if let value { try put(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        record?.add(key, value); if let value { try put(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        record?.add(key, value); if let value { try put(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        record?.add(key, value); if let value { try put(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        record?.add(key, value); if let value { try put(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        record?.add(key, value); if let value { try putInteger(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        record?.add(key, value); if let value { try putInteger(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        record?.add(key, value); if let value { try putInteger(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        record?.add(key, value); if let value { try putInteger(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        record?.add(key, value); if let value { try putInteger(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        record?.add(key, value); if let value { try putInteger(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        record?.add(key, value); if let value { try putInteger(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        record?.add(key, value); if let value { try putInteger(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        record?.add(key, value); if let value { try put(value, key) } else { try putNil(key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        record?.add(key, value); if let value { try putNested(value, key) } else { try putNil(key) }
    }

    private func putNil(_ key: Key) throws {
        try writer.beginMember(frame, key.stringValue)
        writer.writeNull()
    }
    private func put(_ value: Bool, _ key: Key) throws {
        try writer.beginMember(frame, key.stringValue)
        writer.writeBool(value)
    }
    private func put(_ value: String, _ key: Key) throws {
        try writer.beginMember(frame, key.stringValue)
        writer.writeString(value)
    }
    private func put(_ value: Double, _ key: Key) throws {
        try writer.beginMember(frame, key.stringValue)
        try writer.writeDouble(value)
    }
    private func put(_ value: Float, _ key: Key) throws {
        try writer.beginMember(frame, key.stringValue)
        try writer.writeDouble(Double(value))
    }
    private func put(_ value: Int, _ key: Key) throws {
        try writer.beginMember(frame, key.stringValue)
        writer.writeInteger(value)
    }
    private func put(_ value: UInt64, _ key: Key) throws {
        // Beyond Int.max the tree encoder writes a double; let it.
        guard value <= UInt64(Int.max) else { throw writer.outOfOrder() }
        try putInteger(value, key)
    }
    private func putInteger<I: BinaryInteger>(_ value: I, _ key: Key) throws {
        try writer.beginMember(frame, key.stringValue)
        writer.writeInteger(value)
    }
    private func putNested<T: Encodable>(_ value: T, _ key: Key) throws {
        try writer.beginMember(frame, key.stringValue)
        try writer.encodeNested(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<
        NestedKey
    > {
        record?.unusual = true
        do {
            try writer.beginMember(frame, key.stringValue)
        } catch {
            writer.broken = true
        }
        return KeyedEncodingContainer(StreamKeyed<NestedKey>(writer: writer, frame: writer.openNestedObject(), record: nil))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        record?.unusual = true
        do {
            try writer.beginMember(frame, key.stringValue)
        } catch {
            writer.broken = true
        }
        return StreamUnkeyed(writer: writer, frame: writer.openNestedArray())
    }

    mutating func superEncoder() -> any Encoder {
        writer.broken = true
        return writer
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        writer.broken = true
        return writer
    }
}
