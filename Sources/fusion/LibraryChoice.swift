import FusionHost
import FusionSandbox

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which libraries a command uses, and how the LIBs given first are told apart from
/// FEATURE: a word ending in ".so", ".dylib" or ".wasm" (or holding ".so.", as in libX.so.1) or
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

    /// The environment variable every front end reads (Python's fusionkit too).
    static let environmentVariable = "FUSIONKIT_LIBRARY"
    /// Its old name, read for one more release (0.2) with a warning.
    static let oldEnvironmentVariable = "FUSION_LIBRARY"

    /// The library to use when none is given, and the variable that named it: explicit
    /// LIBs come first, then $FUSIONKIT_LIBRARY (then only that file, as in Python: a wrong
    /// setting is an error, not a reason to load another library), else $FUSION_LIBRARY
    /// with a warning, else libFusionExamples.so next to the fusion executable (SwiftPM
    /// builds both into one bin dir). docs/plugin-libraries.md says so for every front end.
    static func defaultLibrary() throws(CLIError) -> (path: String, variable: String?) {
        let configured = environment(environmentVariable)
        if let old = environment(oldEnvironmentVariable) {
            let what = configured == nil ? "set \(environmentVariable) instead" : "ignored: \(environmentVariable) is set"
            Terminal.write(
                "warning: $\(oldEnvironmentVariable) is deprecated and will stop working in the next release (\(what))\n",
                to: STDERR_FILENO)
            if configured == nil { return (old, oldEnvironmentVariable) }
        }
        if let configured { return (configured, environmentVariable) }
        var looked = ["$\(environmentVariable) (not set)"]
        if let directory = executableDirectory() {
            let beside = directory + "/" + defaultName
            if access(beside, F_OK) == 0 { return (beside, nil) }
            looked.append(beside)
        }
        throw CLIError(
            .library, "no library given, and none found at \(looked.joined(separator: " or ")); pass a library path such as ./libMine.so")
    }

    /// A variable's value; unset and empty are alike.
    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
        return value
    }

    /// Loads the given library, or the default one.
    static func load(_ path: String?, limits: SandboxLimits = SandboxLimits()) throws(CLIError) -> HostedLibrary {
        var chosen: String
        var variable: String?
        if let path { chosen = path } else { (chosen, variable) = try defaultLibrary() }
        // dlopen looks for a bare name in the system's library path, never in the
        // current directory; a person typing libMine.so means the file right here.
        if !chosen.contains("/") && access(chosen, F_OK) == 0 { chosen = "./" + chosen }
        do throws(FusionHostError) {
            // A WebAssembly module runs sandboxed (FusionSandbox); anything else is dlopened.
            if chosen.hasSuffix(".wasm") {
                return try HostedLibrary(path: chosen, backend: try SandboxedLibrary(path: chosen, limits: limits))
            }
            return try HostedLibrary(path: chosen)
        } catch {
            let refused = CLIError(error)
            // A library nobody typed: say where its name came from.
            guard let variable else { throw refused }
            throw CLIError(refused.code, refused.message + " (named by $\(variable))")
        }
    }

    /// Loads every library given (side by side), or the default one.
    static func load(_ paths: [String], limits: SandboxLimits = SandboxLimits()) throws(CLIError) -> LibrarySet {
        var libraries: [HostedLibrary] = []
        if paths.isEmpty { libraries.append(try load(nil, limits: limits)) }
        for path in paths { libraries.append(try load(path, limits: limits)) }
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
