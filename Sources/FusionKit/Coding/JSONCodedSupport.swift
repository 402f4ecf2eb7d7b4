/// What the code `@JSONCoded` generates calls: one copy of each rule (how a field is
/// looked up, what a missing one means, how an error names its place), not one per type.
public enum JSONCodedSupport {
    /// A struct's members; the error says what was found instead of an object.
    public static func members(of json: JSONValue) throws(JSONCodingError) -> [JSONMember] {
        guard case .object(let members) = json else { throw .expected("an object", json) }
        return members
    }

    /// A field's value: decoded where it is, else `nil` for an optional, empty for a
    /// derived field (`derived`), and otherwise "missing field".
    public static func field<T: JSONCoded>(
        _ name: String, in members: [JSONMember], derived: Set<String>
    ) throws(JSONCodingError) -> T {
        for member in members where member.key == name {
            do throws(JSONCodingError) {
                return try T(json: member.value)
            } catch {
                throw error.under(name)
            }
        }
        if case .optional = T.jsonShape { return try T(json: .null) }
        if derived.contains(name) {
            if let empty = T.jsonShape.emptyValue { return try T(json: empty) }
            // A derived field of another type: the first empty value it reads.
            for empty: JSONValue in [.null, .array([]), .object([])] {
                if let value = try? T(json: empty) { return value }
            }
        }
        throw JSONCodingError(path: [], reason: "missing field \"\(name)\"")
    }

    /// An enum case's name and payload: `{"case": payload}`, or a bare `"case"` (no payload).
    public static func taggedCase(_ json: JSONValue) throws(JSONCodingError) -> (name: String, payload: JSONValue) {
        switch json {
        case .string(let name): return (name, .object([]))
        case .object(let members) where members.count == 1: return (members[0].key, members[0].value)
        default: throw .expected("an object with one key, the case's name", json)
        }
    }

    /// The payload of a case with one unlabeled value.
    public static func value<T: JSONCoded>(_ payload: JSONValue, case name: String) throws(JSONCodingError) -> T {
        do throws(JSONCodingError) {
            return try T(json: payload)
        } catch {
            throw error.under(name)
        }
    }

    /// A labeled value of a case's payload.
    public static func field<T: JSONCoded>(_ name: String, ofCase caseName: String, in payload: JSONValue) throws(JSONCodingError)
        -> T
    {
        do throws(JSONCodingError) {
            return try field(name, in: try members(of: payload), derived: [])
        } catch {
            throw error.under(caseName)
        }
    }

    public static func unknownCase(_ name: String, of type: String, known: [String]) -> JSONCodingError {
        JSONCodingError(path: [], reason: "unknown case \"\(name)\" of \(type); known: \(known.joined(separator: ", "))")
    }

    // MARK: Shapes, with the types taken from the declarations themselves

    /// A struct field's shape, from a closure that reads the field (its type is the
    /// closure's result): optional fields are not required.
    public static func field<Root, T: JSONCoded>(_ name: String, _ read: (Root) -> T) -> Shape.Field {
        let shape = T.jsonShape
        if case .optional = shape { return Shape.Field(name: name, shape: shape, required: false) }
        return Shape.Field(name: name, shape: shape, required: true)
    }

    /// A case's labeled values as fields.
    public static func fields(_ names: [String], _ shapes: [Shape]) -> [Shape.Field] {
        zip(names, shapes).map { name, shape in
            if case .optional = shape { return Shape.Field(name: name, shape: shape, required: false) }
            return Shape.Field(name: name, shape: shape, required: true)
        }
    }

    /// The shapes of a case's values, from its constructor (`Self.networkTapped(id:)`).
    public static func shapes<A: JSONCoded, R>(of make: (A) -> R) -> [Shape] { [A.jsonShape] }
    public static func shapes<A: JSONCoded, B: JSONCoded, R>(of make: (A, B) -> R) -> [Shape] { [A.jsonShape, B.jsonShape] }
    public static func shapes<A: JSONCoded, B: JSONCoded, C: JSONCoded, R>(of make: (A, B, C) -> R) -> [Shape] {
        [A.jsonShape, B.jsonShape, C.jsonShape]
    }
    public static func shapes<A: JSONCoded, B: JSONCoded, C: JSONCoded, D: JSONCoded, R>(of make: (A, B, C, D) -> R) -> [Shape] {
        [A.jsonShape, B.jsonShape, C.jsonShape, D.jsonShape]
    }
    public static func shapes<A: JSONCoded, B: JSONCoded, C: JSONCoded, D: JSONCoded, E: JSONCoded, R>(
        of make: (A, B, C, D, E) -> R
    ) -> [Shape] {
        [A.jsonShape, B.jsonShape, C.jsonShape, D.jsonShape, E.jsonShape]
    }
    public static func shapes<A: JSONCoded, B: JSONCoded, C: JSONCoded, D: JSONCoded, E: JSONCoded, F: JSONCoded, R>(
        of make: (A, B, C, D, E, F) -> R
    ) -> [Shape] {
        [A.jsonShape, B.jsonShape, C.jsonShape, D.jsonShape, E.jsonShape, F.jsonShape]
    }

    /// A `String`-backed enum's value.
    public static func rawValue<T>(_ json: JSONValue, of type: String, known: [String], _ make: (String) -> T?)
        throws(JSONCodingError) -> T
    {
        guard case .string(let text) = json else { throw .expected("a string", json) }
        guard let value = make(text) else {
            throw JSONCodingError(path: [], reason: "\"\(text)\" is not a \(type); known: \(known.joined(separator: ", "))")
        }
        return value
    }

    /// The fields a type recomputes (`DerivedFields`), chosen at compile time: none for a
    /// type that lists none.
    public static func derivedFields<T>(of type: T.Type) -> Set<String> { [] }
    public static func derivedFields<T: DerivedFields>(of type: T.Type) -> Set<String> { T.derivedFields }
}

extension JSONCodingError {
    static func expected(_ what: String, _ found: JSONValue) -> JSONCodingError {
        JSONCodingError(path: [], reason: "expected \(what), found \(found.kindDescription)")
    }

    /// The same error, one level further down: `key` is a field name or `[index]`.
    public func under(_ key: String) -> JSONCodingError {
        JSONCodingError(path: [key] + path, reason: reason)
    }
}

extension Shape {
    /// What a missing derived field is read as; nil for a shape with no empty value.
    var emptyValue: JSONValue? {
        switch self {
        case .boolean: return .bool(false)
        case .integer, .number: return .integer(0)
        case .string: return .string("")
        case .array: return .array([])
        case .dictionary: return .object([])
        case .optional: return .null
        default: return nil
        }
    }
}
