/// A type that reads and writes its own JSON, with no `Codable`: what `@JSONCoded`
/// generates for a feature's inputs, states and the types inside them. The same code
/// compiles into the native library and under Embedded Swift, which has no `Codable`
/// and no reflection (docs/wasm.md).
///
/// The JSON is the one the runtime's `Codable` coding writes today, byte for byte: a
/// struct is an object of its stored properties in declaration order, `nil` written as
/// `null`; an enum case is `{"case": {labeled values}}`, or `{"case": value}` for a case
/// with one unlabeled value; a `String`-backed enum is its raw value.
public protocol JSONCoded: JSONCodedBase {
    /// Appends this value's JSON.
    func writeJSON(into writer: inout JSONWriter)
    /// Reads a value from parsed JSON; the error names the path and what was expected.
    init(json: JSONValue) throws(JSONCodingError)
    /// The JSON shape, as the manifest, the input checks and the JSON Schema read it.
    static var jsonShape: Shape { get }
}

#if hasFeature(Embedded)
    /// Nothing more under Embedded Swift.
    public protocol JSONCodedBase {}
    extension Optional: JSONCodedBase where Wrapped: JSONCoded {}
    extension Array: JSONCodedBase where Element: JSONCoded {}
    extension Dictionary: JSONCodedBase where Key == String, Value: JSONCoded {}
#else
    /// In the native build a `JSONCoded` type is also `Codable` (Swift synthesizes it), which
    /// the native runtime's encoders still use; Embedded Swift has no `Codable`.
    public typealias JSONCodedBase = Codable
#endif

extension JSONCoded {
    /// This value as a `JSONValue`: its JSON, read back (for a migration that adds it to
    /// a saved state, say).
    public var jsonValue: JSONValue {
        var writer = JSONWriter()
        writeJSON(into: &writer)
        return (try? JSONParser.parse(writer.bytes)) ?? .null
    }

    /// This value's JSON text.
    public var jsonText: String {
        var writer = JSONWriter()
        writeJSON(into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

#if hasFeature(Embedded)
    /// Generates `JSONCoded` for a struct (its stored properties) or an enum (its cases; a
    /// `String`-backed enum is its raw value). A type that lists `DerivedFields` may have
    /// those fields left out of its JSON: they are read as empty (0, false, "", null, [])
    /// for the feature to recompute.
    @attached(extension, conformances: JSONCoded, names: named(writeJSON), named(init(json:)), named(jsonShape))
    public macro JSONCoded() = #externalMacro(module: "FusionMacros", type: "JSONCodedMacro")
#else
    /// Generates `JSONCoded` for a struct (its stored properties) or an enum (its cases; a
    /// `String`-backed enum is its raw value). A type that lists `DerivedFields` may have
    /// those fields left out of its JSON: they are read as empty (0, false, "", null, [])
    /// for the feature to recompute.
    ///
    /// In the native build it also declares `Codable` (Swift synthesizes it), which the
    /// native runtime's encoders still use; Embedded Swift has no `Codable`, and there the
    /// type is `JSONCoded` alone. A feature's types therefore name neither.
    @attached(extension, conformances: JSONCoded, Codable, names: named(writeJSON), named(init(json:)), named(jsonShape))
    public macro JSONCoded() = #externalMacro(module: "FusionMacros", type: "NativeJSONCodedMacro")
#endif

extension Bool: JSONCoded {
    public func writeJSON(into writer: inout JSONWriter) { writer.writeBool(self) }
    public init(json: JSONValue) throws(JSONCodingError) {
        guard case .bool(let value) = json else { throw .expected("a boolean", json) }
        self = value
    }
    public static var jsonShape: Shape { .boolean }
}

extension Int: JSONCoded {
    public func writeJSON(into writer: inout JSONWriter) { writer.writeInteger(self) }
    public init(json: JSONValue) throws(JSONCodingError) {
        switch json {
        case .integer(let value): self = value
        case .double(let value):
            guard let exact = Int(exactly: value) else {
                throw JSONCodingError(path: [], reason: "expected an integer for Int, found \(value)")
            }
            self = exact
        default: throw .expected("an integer", json)
        }
    }
    public static var jsonShape: Shape { .integer }
}

extension Double: JSONCoded {
    /// A number that is not finite (NaN, ±infinity) has no JSON: it is written `null`, as
    /// JavaScript's `JSON.stringify` writes it.
    public func writeJSON(into writer: inout JSONWriter) {
        if isFinite { writer.writeDouble(self) } else { writer.writeRaw("null") }
    }
    public init(json: JSONValue) throws(JSONCodingError) {
        switch json {
        case .integer(let value): self = Double(value)
        case .double(let value): self = value
        default: throw .expected("a number", json)
        }
    }
    public static var jsonShape: Shape { .number }
}

extension String: JSONCoded {
    public func writeJSON(into writer: inout JSONWriter) { writer.writeString(self) }
    public init(json: JSONValue) throws(JSONCodingError) {
        guard case .string(let value) = json else { throw .expected("a string", json) }
        self = value
    }
    public static var jsonShape: Shape { .string }
}

extension Optional: JSONCoded where Wrapped: JSONCoded {
    public func writeJSON(into writer: inout JSONWriter) {
        if let self { self.writeJSON(into: &writer) } else { writer.writeRaw("null") }
    }
    public init(json: JSONValue) throws(JSONCodingError) {
        if case .null = json { self = nil } else { self = try Wrapped(json: json) }
    }
    public static var jsonShape: Shape { .optional(Wrapped.jsonShape) }
}

extension Array: JSONCoded where Element: JSONCoded {
    public func writeJSON(into writer: inout JSONWriter) {
        writer.writeRaw("[")
        for index in indices {
            if index != startIndex { writer.writeRaw(",") }
            self[index].writeJSON(into: &writer)
        }
        writer.writeRaw("]")
    }
    public init(json: JSONValue) throws(JSONCodingError) {
        guard case .array(let elements) = json else { throw .expected("an array", json) }
        var values: [Element] = []
        values.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do throws(JSONCodingError) {
                values.append(try Element(json: element))
            } catch {
                throw error.under("[\(index)]")
            }
        }
        self = values
    }
    public static var jsonShape: Shape { .array(Element.jsonShape) }
}

extension Dictionary: JSONCoded where Key == String, Value: JSONCoded {
    /// Keys in sorted order, so that equal dictionaries write equal JSON.
    public func writeJSON(into writer: inout JSONWriter) {
        writer.writeRaw("{")
        for (position, key) in keys.sorted().enumerated() {
            if position > 0 { writer.writeRaw(",") }
            writer.writeString(key)
            writer.writeRaw(":")
            self[key]!.writeJSON(into: &writer)
        }
        writer.writeRaw("}")
    }
    public init(json: JSONValue) throws(JSONCodingError) {
        guard case .object(let members) = json else { throw .expected("an object", json) }
        var values: [String: Value] = [:]
        for member in members {
            do throws(JSONCodingError) {
                values[member.key] = try Value(json: member.value)
            } catch {
                throw error.under(member.key)
            }
        }
        self = values
    }
    public static var jsonShape: Shape { .dictionary(Value.jsonShape) }
}
