/// Several libraries loaded side by side in one host, and which feature comes from
/// which. A feature is named as in its library ("todo"), or qualified by its library's
/// name ("Chores/counter") when two libraries have a feature of that name: a bare name
/// that is ambiguous is refused with a message naming both libraries.
public struct LibrarySet: Sendable {
    public let libraries: [HostedLibrary]

    /// Refuses two libraries of the same name: a qualified name would not tell them apart.
    public init(_ libraries: [HostedLibrary]) throws(FeatureLookupError) {
        var seen: [String: HostedLibrary] = [:]
        for library in libraries {
            let name = library.summary.libraryName
            if let other = seen[name] {
                throw .duplicateLibrary(name: name, paths: [other.path, library.path])
            }
            seen[name] = library
        }
        self.libraries = libraries
    }

    /// The library and feature a name means: "feature" or "Library/feature".
    public func resolve(_ name: String) throws(FeatureLookupError) -> (library: HostedLibrary, feature: Manifest.Feature) {
        if let slash = name.firstIndex(of: "/") {
            let libraryName = String(name[..<slash])
            let featureName = String(name[name.index(after: slash)...])
            guard let library = libraries.first(where: { $0.summary.libraryName == libraryName }) else {
                throw .unknownLibrary(name: libraryName, known: libraries.map(\.summary.libraryName))
            }
            guard library.summary.feature(named: featureName) != nil else {
                throw .unknownFeature(name: name, known: qualifiedNames)
            }
            return (library, try Self.described(featureName, in: library))
        }
        let matches = libraries.filter { $0.summary.feature(named: name) != nil }
        switch matches.count {
        case 0: throw .unknownFeature(name: name, known: qualifiedNames)
        case 1: return (matches[0], try Self.described(name, in: matches[0]))
        default: throw .ambiguous(name: name, libraries: matches.map { ($0.summary.libraryName, $0.path) })
        }
    }

    /// A feature the summary lists, with its inputs and schemas (read now, once).
    private static func described(_ name: String, in library: HostedLibrary) throws(FeatureLookupError) -> Manifest.Feature {
        let feature: Manifest.Feature?
        do throws(FusionHostError) { feature = try library.feature(named: name) } catch {
            throw .unreadable(name: name, reason: error.description)
        }
        guard let feature else { throw .unreadable(name: name, reason: "the library lists it and does not describe it") }
        return feature
    }

    /// Every feature by the name that reaches it: bare where unique, qualified where not.
    public var qualifiedNames: [String] {
        let all = libraries.flatMap { library in library.summary.features.map { (library.summary.libraryName, $0.name) } }
        return all.map { library, feature in
            all.filter { $0.1 == feature }.count > 1 ? "\(library)/\(feature)" : feature
        }
    }
}
