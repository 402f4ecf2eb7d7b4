/// Why a feature name does not lead to one feature.
public enum FeatureLookupError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownFeature(name: String, known: [String])
    case unknownLibrary(name: String, known: [String])
    case ambiguous(name: String, libraries: [(name: String, path: String)])
    case duplicateLibrary(name: String, paths: [String])
    /// The library lists the feature, and its description could not be read.
    case unreadable(name: String, reason: String)

    public static func == (lhs: FeatureLookupError, rhs: FeatureLookupError) -> Bool {
        lhs.description == rhs.description
    }

    public var description: String {
        switch self {
        case .unknownFeature(let name, let known):
            return "unknown feature \"\(name)\"; the features: \(known.joined(separator: ", "))"
        case .unknownLibrary(let name, let known):
            return "no library named \"\(name)\" is loaded; the libraries: \(known.joined(separator: ", "))"
        case .ambiguous(let name, let libraries):
            let places = libraries.map { "\($0.name) (\($0.path))" }.joined(separator: " and ")
            let choices = libraries.map { "\($0.name)/\(name)" }.joined(separator: " or ")
            return "feature \"\(name)\" is in both \(places); name it \(choices)"
        case .duplicateLibrary(let name, let paths):
            return "two libraries are named \"\(name)\" (\(paths.joined(separator: " and "))); load one of them"
        case .unreadable(let name, let reason):
            return "feature \"\(name)\" could not be described: \(reason)"
        }
    }
}
