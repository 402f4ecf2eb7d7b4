import FusionHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which libraries a command uses, and how the LIBs given first are told apart from
/// FEATURE: a word ending in ".so" or ".dylib" (or holding ".so.", as in libX.so.1) or
/// starting with "/", "./" or "../" is a library; anything else is a feature name,
/// which may be qualified by its library's name ("Chores/counter"). So
/// `fusion run counter`, `fusion run ./libMine.so counter` and
/// `fusion run ./libA.so ./libB.so B/counter` all read as meant.
enum LibraryChoice {
    static let defaultName = SharedLibraryName.forLibrary("FusionExamples")

    static func isLibrary(_ word: String) -> Bool {
        word.hasPrefix("/") || word.hasPrefix("./") || word.hasPrefix("../") || word.hasPrefix("~")
            || SharedLibraryName.looksLikeLibrary(word)
            || (word.contains("/") && word.split(separator: "/").count > 2)
    }

    /// Splits the positional words into the libraries given first (any number) and the rest.
    static func split(_ words: [String]) -> (libraries: [String], rest: [String]) {
        let libraries = words.prefix(while: isLibrary)
        return (Array(libraries), Array(words.dropFirst(libraries.count)))
    }

    /// The library to use when none is given: libFusionExamples.so next to the fusion
    /// executable (SwiftPM builds both into one bin dir), then $FUSION_LIBRARY.
    static func defaultLibrary() throws(CLIError) -> String {
        var looked: [String] = []
        if let directory = executableDirectory() {
            let beside = directory + "/" + defaultName
            if access(beside, F_OK) == 0 { return beside }
            looked.append(beside)
        }
        if let configured = getenv("FUSION_LIBRARY").map({ String(cString: $0) }), !configured.isEmpty {
            return configured
        }
        looked.append("$FUSION_LIBRARY (not set)")
        throw CLIError(
            .library, "no library given, and none found at \(looked.joined(separator: " or ")); pass a library path such as ./libMine.so")
    }

    /// Loads the given library, or the default one.
    static func load(_ path: String?) throws(CLIError) -> HostedLibrary {
        var chosen: String
        if let path { chosen = path } else { chosen = try defaultLibrary() }
        // dlopen looks for a bare name in the system's library path, never in the
        // current directory; a person typing libMine.so means the file right here.
        if !chosen.contains("/") && access(chosen, F_OK) == 0 { chosen = "./" + chosen }
        do throws(FusionHostError) {
            return try HostedLibrary(path: chosen)
        } catch {
            throw CLIError(error)
        }
    }

    /// Loads every library given (side by side), or the default one.
    static func load(_ paths: [String]) throws(CLIError) -> LibrarySet {
        var libraries: [HostedLibrary] = []
        if paths.isEmpty { libraries.append(try load(nil)) }
        for path in paths { libraries.append(try load(path)) }
        do throws(FeatureLookupError) {
            return try LibrarySet(libraries)
        } catch {
            throw CLIError(.library, error.description)
        }
    }

    private static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}

extension LibrarySet {
    /// The feature a name means ("todo", or "Chores/counter" when two libraries have a
    /// "counter"), with its library; an error naming the choices otherwise.
    func feature(named name: String) throws(CLIError) -> (library: HostedLibrary, feature: Manifest.Feature) {
        do throws(FeatureLookupError) {
            return try resolve(name)
        } catch {
            switch error {
            case .unknownFeature:
                throw CLIError(.unknownFeature, "\(error.description) (in \(libraries.map(\.path).joined(separator: ", ")))")
            case .ambiguous, .unknownLibrary, .duplicateLibrary:
                throw CLIError(.unknownFeature, error.description)
            case .unreadable:
                throw CLIError(.library, error.description)
            }
        }
    }
}

extension HostedLibrary {
    /// The whole manifest (every feature described), or the reason it cannot be read.
    func wholeManifest() throws(CLIError) -> Manifest {
        do throws(FusionHostError) { return try manifest() } catch { throw CLIError(.library, error.description) }
    }
}
