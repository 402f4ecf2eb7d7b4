/// Describes a `Decodable` type by running its own `init(from:)` against a decoder
/// that answers every request with a placeholder and writes down what was asked:
/// which keys, of which types, which ones through `decodeIfPresent`.
///
/// Enums are described case by case: their case names come from `EnumMetadata`, and
/// the decoder steers the synthesized `init(from:)` into each case in turn.
public enum ShapeRecorder {
    public static func shape<T: Decodable>(of type: T.Type) -> Shape {
        let session = ShapeSession()
        return session.shape(of: type)
    }
}

/// Types the recorder recognises without running their `init(from:)`.
protocol OptionalShape { static func wrappedShape(_ session: ShapeSession) -> Shape; static var absent: Self { get } }
protocol SequenceShape { static func elementShape(_ session: ShapeSession) -> Shape; static var empty: Self { get } }
protocol DictionaryShape { static func valueShape(_ session: ShapeSession) -> Shape; static var empty: Self { get } }

extension Optional: OptionalShape where Wrapped: Decodable {
    static func wrappedShape(_ session: ShapeSession) -> Shape { session.shape(of: Wrapped.self) }
    static var absent: Wrapped? { nil }
}

extension Array: SequenceShape where Element: Decodable {
    static func elementShape(_ session: ShapeSession) -> Shape { session.shape(of: Element.self) }
    static var empty: [Element] { [] }
}

extension Set: SequenceShape where Element: Decodable {
    static func elementShape(_ session: ShapeSession) -> Shape { session.shape(of: Element.self) }
    static var empty: Set<Element> { [] }
}

extension Dictionary: DictionaryShape where Key == String, Value: Decodable {
    static func valueShape(_ session: ShapeSession) -> Shape { session.shape(of: Value.self) }
    static var empty: [String: Value] { [:] }
}

/// The raw values of a `CaseIterable` enum backed by `String`, or nil for any other type.
private func stringRawValues(_ type: Any.Type) -> [String]? {
    guard let iterable = type as? any CaseIterable.Type else { return nil }
    return rawStrings(of: iterable)
}

private func rawStrings<C: CaseIterable>(of type: C.Type) -> [String]? {
    var values: [String] = []
    for value in type.allCases {
        guard let raw = (value as? any RawRepresentable)?.rawValue as? String else { return nil }
        values.append(raw)
    }
    return values
}

private struct RecordingStopped: Error {}

/// Shapes and sample values already worked out in one description, by type: a type
/// used in many places is described once.
final class KnownShapes {
    var shapes: [ObjectIdentifier: Shape] = [:]
    var samples: [ObjectIdentifier: Any] = [:]
}

/// What the runtime's metadata says a type is, read before any cast to a protocol:
/// each such cast a type has not seen yet scans every conformance the process has
/// loaded, which made describing a library most of its start time.
enum TypeKind {
    case optional
    /// Array, Set or Dictionary: the types the recorder reads through a protocol.
    case collection
    case other

    private static let structKind: UInt = 0x200  // MetadataKind::Struct
    private static let optionalKind: UInt = 0x202  // MetadataKind::Optional
    private static let collections = [descriptor([Int].self), descriptor(Set<Int>.self), descriptor([String: Int].self)]

    static func of(_ type: Any.Type) -> TypeKind {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        switch metadata.load(as: UInt.self) {
        case optionalKind: return .optional
        case structKind: return collections.contains(descriptor(type)) ? .collection : .other
        default: return .other
        }
    }

    /// A struct's nominal type descriptor's address: the same for every specialization
    /// of a generic type.
    private static func descriptor(_ type: Any.Type) -> UInt {
        unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 8, as: UInt.self)
    }
}

final class ShapeSession {
    /// Types being described further up, to stop at recursion.
    private var inProgress: [ObjectIdentifier] = []
    /// What this description found out already, shared with the sessions it starts.
    private let known: KnownShapes
    /// How many times a description stopped at recursion: a shape is kept for reuse only
    /// if describing it did not (a shape cut short depends on where it was asked for).
    private var referencesMade = 0

    init(known: KnownShapes = KnownShapes()) {
        self.known = known
    }

    func shape<T: Decodable>(of type: T.Type) -> Shape {
        if let primitive = primitiveShape(T.self) { return primitive }
        switch TypeKind.of(T.self) {
        case .optional:
            if let optional = T.self as? any OptionalShape.Type { return .optional(optional.wrappedShape(self)) }
        case .collection:
            if let sequence = T.self as? any SequenceShape.Type { return .array(sequence.elementShape(self)) }
            if let dictionary = T.self as? any DictionaryShape.Type { return .dictionary(dictionary.valueShape(self)) }
        case .other:
            break
        }
        let id = ObjectIdentifier(T.self)
        if let shape = known.shapes[id] { return shape }
        let name = EnumMetadata.typeName(of: T.self)
        if inProgress.contains(id) {
            referencesMade += 1
            return .reference(name: name)
        }
        let referencesBefore = referencesMade
        inProgress.append(id)
        let shape = describe(T.self, name: name)
        inProgress.removeLast()
        if referencesMade == referencesBefore { known.shapes[id] = shape }
        return shape
    }

    private func describe<T: Decodable>(_ type: T.Type, name: String) -> Shape {
        if let cases = EnumMetadata.caseNames(of: T.self) { return enumShape(T.self, name: name, caseNames: cases) }
        let recorder = ShapeRecordingDecoder(session: self, forcedCase: nil)
        do {
            _ = try T(from: recorder)
        } catch {
            return .any
        }
        return recorder.result(name: name)
    }

    /// A value of `T` to hand back to the code that asked for one, with its shape.
    func sample<T: Decodable>(of type: T.Type) throws -> (T, Shape) {
        switch TypeKind.of(T.self) {
        case .optional:
            if let optional = T.self as? any OptionalShape.Type {
                return (optional.absent as! T, .optional(optional.wrappedShape(self)))
            }
        case .collection:
            if let sequence = T.self as? any SequenceShape.Type {
                return (sequence.empty as! T, .array(sequence.elementShape(self)))
            }
            if let dictionary = T.self as? any DictionaryShape.Type {
                return (dictionary.empty as! T, .dictionary(dictionary.valueShape(self)))
            }
        case .other:
            break
        }
        let shape = self.shape(of: T.self)
        let id = ObjectIdentifier(T.self)
        if let value = known.samples[id] as? T { return (value, shape) }
        // Build the value with the first case (for enums) that decodes.
        for forcedCase in EnumMetadata.caseNames(of: T.self).map({ $0.map(Optional.some) }) ?? [nil] {
            if let value = try? T(from: ShapeRecordingDecoder(session: ShapeSession(known: known), forcedCase: forcedCase)) {
                known.samples[id] = value
                return (value, shape)
            }
        }
        throw RecordingStopped()
    }

    private func primitiveShape<T>(_ type: T.Type) -> Shape? {
        switch type {
        case is Bool.Type: return .boolean
        case is String.Type: return .string
        case is Double.Type, is Float.Type: return .number
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
            is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type:
            return .integer
        default: return nil
        }
    }

    private func enumShape<T: Decodable>(_ type: T.Type, name: String, caseNames: [String]) -> Shape {
        if let values = stringRawValues(T.self) {
            return .stringEnum(name: name, values: values)
        }
        var cases: [Shape.Case] = []
        var stringValues: [String] = []
        var other: Shape?
        for caseName in caseNames {
            let recorder = ShapeRecordingDecoder(session: self, forcedCase: caseName)
            guard (try? T(from: recorder)) != nil else { continue }
            switch recorder.result(name: name) {
            case .object(_, let fields):
                let payload = payloadFields(fields, caseName)
                if payload.count == 1, payload[0].name == "_0" {
                    cases.append(.init(name: caseName, fields: [], value: payload[0].shape))
                } else {
                    cases.append(.init(name: caseName, fields: payload))
                }
            case .string: stringValues.append(caseName)
            case let shape: other = shape
            }
        }
        if !cases.isEmpty { return .taggedUnion(name: name, cases: cases) }
        if !stringValues.isEmpty { return .stringEnum(name: name, values: stringValues) }
        return other ?? .any
    }

    /// The synthesized code reads `{"case": {payload}}`: the object has one field, the case.
    private func payloadFields(_ fields: [Shape.Field], _ caseName: String) -> [Shape.Field] {
        guard let payload = fields.first(where: { $0.name == caseName }) else { return [] }
        if case .object(_, let payloadFields) = payload.shape { return payloadFields }
        return []
    }
}

/// The decoder that writes down what is asked of it.
final class ShapeRecordingDecoder: Decoder {
    let session: ShapeSession
    let forcedCase: String?
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    private var fields: [Shape.Field] = []
    private var optionalKeys: Set<String> = []
    private var single: Shape?
    private var sawArray = false
    fileprivate var pendingNested: [(String, ShapeRecordingDecoder)] = []

    init(session: ShapeSession, forcedCase: String?) {
        self.session = session
        self.forcedCase = forcedCase
    }

    func result(name: String) -> Shape {
        if let single { return single }
        if sawArray && fields.isEmpty { return .array(.any) }
        for (name, nested) in pendingNested {
            if let i = fields.firstIndex(where: { $0.name == name }) { fields[i].shape = nested.result(name: "") }
        }
        let resolved = fields.map { field -> Shape.Field in
            var field = field
            if optionalKeys.contains(field.name) {
                field.required = false
                if case .optional = field.shape {} else { field.shape = .optional(field.shape) }
            }
            return field
        }
        return .object(name: name, fields: resolved)
    }

    func record(_ name: String, _ shape: Shape) {
        var required = true
        var shape = shape
        if case .optional = shape { required = false }
        if optionalKeys.contains(name) {
            required = false
            if case .optional = shape {} else { shape = .optional(shape) }
        }
        if let i = fields.firstIndex(where: { $0.name == name }) {
            fields[i] = .init(name: name, shape: shape, required: required)
        } else {
            fields.append(.init(name: name, shape: shape, required: required))
        }
    }

    func markOptional(_ name: String) { optionalKeys.insert(name) }

    func recordSingle(_ shape: Shape) { single = shape }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordingKeyed<Key>(recorder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        sawArray = true
        return RecordingUnkeyed()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordingSingle(recorder: self)
    }

    func placeholder<T: Decodable>(_ type: T.Type) throws -> (T, Shape) {
        switch T.self {
        case is Bool.Type: return (false as! T, .boolean)
        case is String.Type: return ((forcedCase ?? "") as! T, .string)
        case is Double.Type: return (0.0 as! T, .number)
        case is Float.Type: return (Float(0) as! T, .number)
        case is Int.Type: return (0 as! T, .integer)
        case is Int8.Type: return (Int8(0) as! T, .integer)
        case is Int16.Type: return (Int16(0) as! T, .integer)
        case is Int32.Type: return (Int32(0) as! T, .integer)
        case is Int64.Type: return (Int64(0) as! T, .integer)
        case is UInt.Type: return (UInt(0) as! T, .integer)
        case is UInt8.Type: return (UInt8(0) as! T, .integer)
        case is UInt16.Type: return (UInt16(0) as! T, .integer)
        case is UInt32.Type: return (UInt32(0) as! T, .integer)
        case is UInt64.Type: return (UInt64(0) as! T, .integer)
        default: return try session.sample(of: T.self)
        }
    }
}

private struct RecordingKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: ShapeRecordingDecoder
    var codingPath: [any CodingKey] { [] }

    /// Steers synthesized enum code into the case being described.
    var allKeys: [Key] {
        guard let forced = recorder.forcedCase, let key = Key(stringValue: forced) else { return [] }
        return [key]
    }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool {
        // Only `decodeIfPresent` asks this before decoding: the field is optional.
        recorder.markOptional(key.stringValue)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (value, shape) = try recorder.placeholder(T.self)
        recorder.record(key.stringValue, shape)
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        recorder.markOptional(key.stringValue)
        let (value, shape) = try recorder.placeholder(T.self)
        recorder.record(key.stringValue, shape)
        return value
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = ShapeRecordingDecoder(session: recorder.session, forcedCase: nil)
        let container = try nested.container(keyedBy: NestedKey.self)
        recorder.record(key.stringValue, .object(name: "", fields: []))
        recorder.adopt(key.stringValue, nested)
        return container
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        recorder.record(key.stringValue, .array(.any))
        return RecordingUnkeyed()
    }

    func superDecoder() throws -> any Decoder { recorder }
    func superDecoder(forKey key: Key) throws -> any Decoder { recorder }
}

extension ShapeRecordingDecoder {
    /// A nested container's fields are only known after the caller has used it; keep
    /// the nested recorder and read its result when this one is read.
    fileprivate func adopt(_ name: String, _ nested: ShapeRecordingDecoder) {
        pendingNested.append((name, nested))
    }
}

private struct RecordingUnkeyed: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }
    mutating func decodeNil() throws -> Bool { true }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw RecordingStopped() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw RecordingStopped()
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw RecordingStopped() }
    mutating func superDecoder() throws -> any Decoder { throw RecordingStopped() }
}

private struct RecordingSingle: SingleValueDecodingContainer {
    let recorder: ShapeRecordingDecoder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, shape) = try recorder.placeholder(T.self)
        recorder.recordSingle(shape)
        return value
    }
}
