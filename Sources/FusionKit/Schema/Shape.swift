/// The JSON shape of a Swift type as its `Codable` conformance reads and writes it.
///
/// Recorded from the type itself (see `ShapeRecorder`), so feature authors write plain
/// Swift and the manifest, the input checks and the JSON Schema follow from it.
public indirect enum Shape: Sendable, Equatable {
    case boolean
    case integer
    case number
    case string
    /// A string that must be one of the listed values (a `String`-backed enum).
    case stringEnum(name: String, values: [String])
    case array(Shape)
    /// An object with arbitrary string keys (a `[String: Value]`).
    case dictionary(Shape)
    /// A struct: named fields.
    case object(name: String, fields: [Field])
    /// An enum with cases written as `{"caseName": {payload fields}}`.
    case taggedUnion(name: String, cases: [Case])
    /// A value that may be null (a Swift `Optional`).
    case optional(Shape)
    /// A type already being described further up (a recursive type).
    case reference(name: String)
    /// A type whose `Codable` code could not be described; any JSON is accepted.
    case any

    // Plain records (a name and what it holds), alike in shape to others of their kind.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var shape: Shape
        /// False when the field may be omitted (it is optional).
        public var required: Bool

        public init(name: String, shape: Shape, required: Bool) {
            self.name = name
            self.shape = shape
            self.required = required
        }
    }

    public struct Case: Sendable, Equatable {
        public var name: String
        /// Labeled payload fields, written `{"case": {"field": …}}`.
        public var fields: [Field]
        /// The payload of a case with one unlabeled value (`case connect(Connect.State)`),
        /// written bare: `{"case": value}`.
        public var value: Shape?

        public init(name: String, fields: [Field], value: Shape? = nil) {
            self.name = name
            self.fields = fields
            self.value = value
        }
    }

    /// A short type name for people: "string", "integer", "[Network]", "Network?".
    public var typeName: String {
        switch self {
        case .boolean: return "boolean"
        case .integer: return "integer"
        case .number: return "number"
        case .string: return "string"
        case .stringEnum(let name, let values): return name.isEmpty ? values.joined(separator: "|") : name
        case .array(let element): return "[\(element.typeName)]"
        case .dictionary(let value): return "[string: \(value.typeName)]"
        case .object(let name, _): return name.isEmpty ? "object" : name
        case .taggedUnion(let name, _): return name.isEmpty ? "enum" : name
        case .optional(let wrapped): return "\(wrapped.typeName)?"
        case .reference(let name): return name
        case .any: return "any"
        }
    }

    /// The Swift name of a named shape (a struct, an enum), "" for others.
    public var title: String {
        switch self {
        case .stringEnum(let name, _), .object(let name, _), .taggedUnion(let name, _), .reference(let name): return name
        default: return ""
        }
    }

    /// The JSON type a value of this shape is written as, for error messages.
    public var expectedKind: String {
        switch self {
        case .boolean: return "a boolean"
        case .integer: return "an integer"
        case .number: return "a number"
        case .string, .stringEnum: return "a string"
        case .array: return "an array"
        case .dictionary, .object, .taggedUnion: return "an object"
        case .optional(let wrapped): return "\(wrapped.expectedKind) or null"
        case .reference, .any: return "a value"
        }
    }
}
