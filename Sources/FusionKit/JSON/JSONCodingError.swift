/// A value that does not fit the Swift type it is decoded into, or a Swift value that
/// cannot be written as JSON. The path says where, the reason says what.
public struct JSONCodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Keys and array indices from the root to the offending value.
    public var path: [String]
    public var reason: String

    public init(path: [String], reason: String) {
        self.path = path
        self.reason = reason
    }

    init(_ codingPath: [any CodingKey], _ reason: String) {
        // "_0", a case's one unlabeled value, is the case's object itself in the JSON.
        self.init(path: codingPath.filter { $0.stringValue != "_0" }.map(\.pathComponent), reason: reason)
    }

    /// The path written as `$.networks[3].name`.
    public var pathDescription: String {
        var text = "$"
        for component in path {
            if component.first == "[" { text += component } else { text += "." + component }
        }
        return text
    }

    public var description: String {
        path.isEmpty ? reason : "at \(pathDescription): \(reason)"
    }
}

extension CodingKey {
    var pathComponent: String {
        if let index = intValue, stringValue.hasPrefix("Index ") || stringValue == "\(index)" { return "[\(index)]" }
        return stringValue
    }
}

/// A key for positions in arrays and for keys only known at run time.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
