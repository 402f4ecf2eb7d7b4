@_spi(Reflection) import Swift

/// What one value's `encode(to:)` did to its own container, one level deep, and the
/// bytes it wrote: noted by `StreamWriter` during a real encode (so recording calls no
/// `encode(to:)` beyond the encode itself), and read by `EncodingPlanBuilder` to decide
/// whether the type may be written from memory.
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
    /// Writes the recorded value with a plan for its type built from the given verdicts;
    /// true when that gives the bytes in the second argument.
    private let replay: ([ObjectIdentifier: EncodingPlanBuilder.Verdict], [UInt8]) -> Bool
    /// Whether every field is plainly stored: false for `weak` and `unowned` ones, which
    /// cannot be read as the value their type names.
    let fieldsArePlain: Bool
    private(set) var members: [Member] = []
    var keyedContainers = 0
    /// Set by anything a synthesized conformance does not do (see `isPlainKeyed`).
    var unusual = false
    /// What the encode wrote for this value.
    var bytes: [UInt8] = []

    init<T: Encodable>(_ value: T) {
        type = T.self
        withValue = { body in withUnsafePointer(to: value) { body(UnsafeRawPointer($0)) } }
        // Key paths cannot be formed to weak or unowned fields, so this reports them.
        fieldsArePlain = !(T.self is AnyClass) && _forEachFieldWithKeyPath(of: T.self) { _, _ in true }
        replay = { verdicts, expected in
            let plan = EncodingPlanBuilder.plan(for: T.self, verdicts: verdicts)
            let writer = StreamWriter()
            do {
                try withUnsafePointer(to: value) { try plan.write(UnsafeRawPointer($0), to: writer) }
                try writer.finish()
            } catch {
                return false
            }
            return writer.bytes == expected
        }
    }

    /// Whether a plan for the type, built from `verdicts`, writes what the encode wrote for
    /// the recorded value: catches members whose values `encode(to:)` transforms.
    func replays(with verdicts: [ObjectIdentifier: EncodingPlanBuilder.Verdict]) -> Bool {
        replay(verdicts, bytes)
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
    mutating func start<T: Encodable>(_ value: T) -> EncodeRecord? {
        let id = ObjectIdentifier(T.self)
        guard records[id] == nil else { return nil }
        let record = EncodeRecord(value)
        records[id] = record
        return record
    }
}
