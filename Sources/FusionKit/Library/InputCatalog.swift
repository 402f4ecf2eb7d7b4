/// The inputs a feature accepts, read from its `Input` type's shape, and the checks that
/// turn an input's JSON into something its `Decodable` code accepts, or into an error
/// that names the case and field at fault.
public struct InputCatalog: Sendable, Equatable {
    public struct Case: Sendable, Equatable {
        public var name: String
        public var fields: [Shape.Field]
        /// Set for a case whose payload is one unlabeled value, sent bare.
        public var value: Shape?
    }

    /// How the Swift type reads its cases.
    @usableFromInline enum Form: Sendable, Equatable {
        /// `{"case": {fields}}` (an enum with synthesized `Codable`).
        case tagged
        /// `"case"` (a `String`-backed enum).
        case bareString
    }

    public let featureName: String
    public let cases: [Case]
    @usableFromInline let form: Form

    @usableFromInline
    init(featureName: String, shape: Shape) {
        self.featureName = featureName
        switch shape {
        case .taggedUnion(_, let cases):
            self.cases = cases.map { Case(name: $0.name, fields: $0.fields, value: $0.value) }
            form = .tagged
        case .stringEnum(_, let values):
            self.cases = values.map { Case(name: $0, fields: [], value: nil) }
            form = .bareString
        default:
            self.cases = []
            form = .tagged
        }
    }

    public var caseNames: [String] { cases.map { $0.name } }

    /// Checks an input and rewrites it into the form the Swift type decodes.
    @usableFromInline
    func normalize(_ value: JSONValue) throws(FusionError) -> JSONValue {
        let name: String
        let payload: JSONValue?
        switch value {
        case .string(let s):
            name = s
            payload = nil
        case .object(let members) where members.count == 1:
            name = members[0].key
            payload = members[0].value
        default:
            throw FusionError(
                .invalidInput,
                "an input is a case name such as \"\(cases.first?.name ?? "increase")\" or an object with exactly one key, the case name, holding its fields; found \(describe(value))"
            )
        }
        guard let known = cases.first(where: { $0.name == name }) else {
            throw FusionError(
                .unknownInput,
                "unknown input \"\(name)\" for feature \"\(featureName)\"; valid inputs: \(caseNames.joined(separator: ", "))")
        }
        if let valueShape = known.value {
            guard let payload else {
                throw FusionError(.invalidInput, "input \"\(name)\" takes a value (\(valueShape.typeName)): send {\"\(name)\": …}")
            }
            if let problem = ShapeCheck.mismatch(payload, valueShape) {
                throw FusionError(.invalidInput, "input \"\(name)\": \(problem)")
            }
            return .object([JSONMember(name, payload)])
        }
        let fields = try checkPayload(payload, of: known)
        switch form {
        case .tagged: return .object([JSONMember(name, .object(fields))])
        case .bareString: return .string(name)
        }
    }

    private func checkPayload(_ payload: JSONValue?, of input: Case) throws(FusionError) -> [JSONMember] {
        let members: [JSONMember]
        switch payload {
        // `{"increase": null}` is none of the two spellings (fusionkit.h), refused like
        // `false` or `[]`: read as `"increase"`, it was a third, which the poison rule's
        // comparison of inputs would not know for the same input.
        case nil: members = []
        case .object(let m)?: members = m
        case let other?:
            let takes =
                input.fields.isEmpty
                ? "takes no fields: send \"\(input.name)\" or {\"\(input.name)\":{}}"
                : "takes an object of fields \(signature(input))"
            throw FusionError(.invalidInput, "input \"\(input.name)\" \(takes); found \(other.kindDescription)")
        }
        for member in members where !input.fields.contains(where: { $0.name == member.key }) {
            let expected = input.fields.isEmpty ? "it takes no fields" : "its fields: \(signature(input))"
            throw FusionError(.invalidInput, "input \"\(input.name)\" has no field \"\(member.key)\"; \(expected)")
        }
        for field in input.fields where field.required && !members.contains(where: { $0.key == field.name }) {
            throw FusionError(
                .invalidInput,
                "input \"\(input.name)\" is missing field \"\(field.name)\" (\(field.shape.typeName)); its fields: \(signature(input))")
        }
        for member in members {
            guard let field = input.fields.first(where: { $0.name == member.key }) else { continue }
            if let problem = ShapeCheck.mismatch(member.value, field.shape) {
                throw FusionError(.invalidInput, "input \"\(input.name)\", field \"\(field.name)\": \(problem)")
            }
        }
        return members
    }

    /// An input with fields: checked against the catalog (whose errors name the case and
    /// field), then read by the input's own `@JSONCoded` code. The one way both the native
    /// library and the WebAssembly module read such an input.
    @usableFromInline
    func read<Input: JSONCoded>(_ parsed: JSONValue, as type: Input.Type) throws(FusionError) -> Input {
        let normalized = try normalize(parsed)
        do throws(JSONCodingError) {
            return try Input(json: normalized)
        } catch {
            throw FusionError(.invalidInput, "the input does not fit feature \"\(featureName)\": \(error.description)")
        }
    }

    /// `id: string, label: string?`
    func signature(_ input: Case) -> String {
        input.fields.map { "\($0.name): \($0.shape.typeName)" }.joined(separator: ", ")
    }

    private func describe(_ value: JSONValue) -> String {
        if case .object(let members) = value {
            return members.isEmpty ? "an empty object" : "an object with \(members.count) keys"
        }
        return value.kindDescription
    }
}

/// A shallow check that a JSON value is of the kind a shape expects, so an error can say
/// "expected an integer, found a string" before the Swift decoder runs.
enum ShapeCheck {
    static func mismatch(_ value: JSONValue, _ shape: Shape) -> String? {
        switch (shape, value) {
        case (.optional, .null), (.any, _), (.reference, _): return nil
        case (.optional(let wrapped), _): return mismatch(value, wrapped)
        case (.boolean, .bool), (.string, .string), (.number, .integer), (.number, .double), (.integer, .integer),
            (.array, .array), (.dictionary, .object), (.object, .object), (.taggedUnion, .object):
            return nil
        case (.integer, .double(let d)) where d == d.rounded():
            return nil
        case (.stringEnum(_, let values), .string(let s)):
            return values.contains(s) ? nil : "\"\(s)\" is not one of \(values.map { "\"\($0)\"" }.joined(separator: ", "))"
        default:
            return "expected \(shape.expectedKind), found \(value.kindDescription)"
        }
    }
}
