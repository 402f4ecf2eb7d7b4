/// What one value's `encode(to:)` did to its own container, one level deep: written
/// down by `StreamWriter` during a real encode (so recording costs no extra call of
/// anyone's `encode(to:)`), and read by `EncodingPlanBuilder` to decide whether the
/// type may be written from memory.
final class EncodeRecord {
    struct Member {
        let key: String
        /// The type of the value passed; `T?` for `encodeIfPresent`.
        let type: Any.Type
        let value: Any
    }

    let type: Any.Type
    /// Calls `body` with the address of a copy of the recorded value.
    let withValue: ((UnsafeRawPointer) -> Bool) -> Bool
    private(set) var members: [Member] = []
    var keyedContainers = 0
    /// Set by anything a synthesized conformance does not do (see `isPlainKeyed`).
    var unusual = false

    init<T>(_ value: T) {
        type = T.self
        withValue = { body in withUnsafePointer(to: value) { body(UnsafeRawPointer($0)) } }
    }

    /// One keyed container, written with plain `encode`/`encodeIfPresent` calls only.
    var isPlainKeyed: Bool { keyedContainers == 1 && !unusual }

    func add<T>(_ key: some CodingKey, _ value: T) {
        members.append(Member(key: key.stringValue, type: T.self, value: value))
    }
}

/// The records of one encode: the first value of each type met.
struct EncodeRecording {
    private(set) var records: [ObjectIdentifier: EncodeRecord] = [:]

    /// A record for a value of `T`, unless one was made already.
    mutating func start<T>(_ value: T) -> EncodeRecord? {
        let id = ObjectIdentifier(T.self)
        guard records[id] == nil else { return nil }
        let record = EncodeRecord(value)
        records[id] = record
        return record
    }
}
