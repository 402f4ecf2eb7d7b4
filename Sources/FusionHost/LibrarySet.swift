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
        let (library, feature) = try locate(name)
        return (library, try Self.described(feature, in: library))
    }

    /// The library a name means and the feature's name in it, from the summaries alone
    /// (nothing described): what a host needs to create an instance.
    public func locate(_ name: String) throws(FeatureLookupError) -> (library: HostedLibrary, feature: String) {
        if let slash = name.firstIndex(of: "/") {
            let libraryName = String(name[..<slash])
            let featureName = String(name[name.index(after: slash)...])
            guard let library = libraries.first(where: { $0.summary.libraryName == libraryName }) else {
                throw .unknownLibrary(name: libraryName, known: libraries.map(\.summary.libraryName))
            }
            guard library.summary.feature(named: featureName) != nil else {
                throw .unknownFeature(name: name, known: qualifiedNames)
            }
            return (library, featureName)
        }
        let matches = libraries.filter { $0.summary.feature(named: name) != nil }
        switch matches.count {
        case 0: throw .unknownFeature(name: name, known: qualifiedNames)
        case 1: return (matches[0], name)
        default: throw .ambiguous(name: name, libraries: matches.map { ($0.summary.libraryName, $0.path) })
        }
    }

    /// The name that reaches `feature` of `library`: bare where no other library has a
    /// feature of that name, "Library/feature" where one does.
    public func name(of feature: String, in library: HostedLibrary) -> String {
        let shared = libraries.filter { $0.summary.feature(named: feature) != nil }.count > 1
        return shared ? "\(library.summary.libraryName)/\(feature)" : feature
    }

    /// The library a journal was written by, from its header's "library" ("Name
    /// version"); nil when none of these has that name.
    public func library(writing header: JSONValue) -> HostedLibrary? {
        guard let writer = header["library"]?.stringValue else { return nil }
        return libraries.first { writer == $0.summary.libraryName || writer.hasPrefix($0.summary.libraryName + " ") }
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
