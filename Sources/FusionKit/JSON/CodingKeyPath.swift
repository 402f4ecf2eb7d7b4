/// How `Codable`'s coding paths become a `JSONCodingError`'s path: the native runtime's
/// `Codable` encoders and decoder only (Embedded Swift has no `Codable`).
extension JSONCodingError {
    init(_ codingPath: [any CodingKey], _ reason: String) {
        // "_0", a case's one unlabeled value, is the case's object itself in the JSON.
        self.init(path: codingPath.filter { $0.stringValue != "_0" }.map(\.pathComponent), reason: reason)
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
