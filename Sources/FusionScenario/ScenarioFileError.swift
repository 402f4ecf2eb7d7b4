/// A scenario file that cannot be read, with what is wrong and where.
public struct ScenarioFileError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}
