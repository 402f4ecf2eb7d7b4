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
