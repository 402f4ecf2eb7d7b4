/// An `Encoder` that writes nothing and notes what an `encode(to:)` did: for
/// `EncodingPlanBuilder`, which plans a struct only when that was one keyed container
/// with one plain write per stored property.
final class EncodeRecorder: Encoder {
    struct Member {
        let key: String
        /// The type of the value passed; `T?` for `encodeIfPresent`.
        let type: Any.Type
        let value: Any
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    private(set) var members: [Member] = []
    private var keyedContainers = 0
    /// Set by anything a synthesized conformance does not do.
    private var unusual = false

    /// One keyed container, written with plain `encode`/`encodeIfPresent` calls only.
    var isPlainKeyed: Bool { keyedContainers == 1 && !unusual }

    func record<T>(_ value: T, _ key: some CodingKey) {
        members.append(Member(key: key.stringValue, type: T.self, value: value))
    }

    func markUnusual() { unusual = true }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        keyedContainers += 1
        return KeyedEncodingContainer(RecordingKeyed<Key>(recorder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        unusual = true
        return RecordingUnkeyed()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        unusual = true
        return RecordingSingle()
    }
}

private struct RecordingKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let recorder: EncodeRecorder
    var codingPath: [any CodingKey] { [] }

    // Synthesized code writes absent optionals with encodeIfPresent, never encodeNil.
    mutating func encodeNil(forKey key: Key) throws { recorder.markUnusual() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { recorder.record(value, key) }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { recorder.record(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { recorder.record(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        recorder.markUnusual()
        return KeyedEncodingContainer(RecordingKeyed<NestedKey>(recorder: EncodeRecorder()))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        recorder.markUnusual()
        return RecordingUnkeyed()
    }

    mutating func superEncoder() -> any Encoder {
        recorder.markUnusual()
        return EncodeRecorder()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        recorder.markUnusual()
        return EncodeRecorder()
    }
}

/// Never part of a planned type: accepts and forgets everything.
private struct RecordingUnkeyed: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count = 0
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RecordingKeyed<NestedKey>(recorder: EncodeRecorder()))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { RecordingUnkeyed() }
    mutating func superEncoder() -> any Encoder { EncodeRecorder() }
}

private struct RecordingSingle: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}
