/// Why a manifest could not be read.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }

    static func require<T>(_ value: T?, _ path: String, _ expected: String) throws(ManifestError) -> T {
        guard let value else { throw ManifestError("\(path) is missing or is not \(expected)") }
        return value
    }
}
