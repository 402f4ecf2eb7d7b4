#if canImport(Glibc)
import Glibc
#endif
import FusionHost

/// Which library a command uses, and how an optional leading LIB is told apart from
/// FEATURE: a word containing "/" or ending in ".so" (or holding ".so.", as in
/// libX.so.1) is a library; anything else is a feature name. Feature names never
/// look like that, so `fusion run counter` and `fusion run ./libMine.so counter` both
/// read as meant; a library in the current directory is written `./libMine.so`.
enum LibraryChoice {
    static let defaultName = "libFusionExamples.so"

    static func isLibrary(_ word: String) -> Bool {
        word.contains("/") || word.hasSuffix(".so") || word.contains(".so.") || word.hasSuffix(".dylib")
    }

    /// Splits the positional words into the library (if given) and the rest.
    static func split(_ words: [String]) -> (library: String?, rest: [String]) {
        guard let first = words.first, isLibrary(first) else { return (nil, words) }
        return (first, Array(words.dropFirst()))
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
        throw CLIError(.library, "no library given, and none found at \(looked.joined(separator: " or ")); pass a library path such as ./libMine.so")
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

    private static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}

extension HostedLibrary {
    /// The named feature, or an error listing the library's features.
    func feature(named name: String) throws(CLIError) -> Manifest.Feature {
        guard let feature = manifest.feature(named: name) else {
            let known = manifest.features.map(\.name).joined(separator: ", ")
            throw CLIError(.unknownFeature, "unknown feature \"\(name)\" in \(path); its features: \(known)")
        }
        return feature
    }
}
