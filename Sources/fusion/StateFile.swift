import FusionHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file `--state FILE` reads and writes: the same document `fusion send --json`
/// prints, `{"feature":"counter","stateVersion":1,"version":2,"state":{…}}`, so either
/// can feed the next run (and Python's `Instance.save()` writes it too). Only "state"
/// is needed to start from; "feature", when present, must name the feature being run;
/// "stateVersion" is the feature's state version when it was saved (1 when absent, as
/// in files from before state versions), so a newer library migrates the state or says
/// why it cannot.
enum StateFile {
    /// A state read from a file, with the state version it was saved at.
    struct Saved {
        var state: JSONValue
        var stateVersion: Int
    }

    static func document(feature: Manifest.Feature, state: InstanceState) throws(CLIError) -> JSONValue {
        let value: JSONValue
        do {
            value = try state.value()
        } catch {
            throw CLIError(.failure, "the library returned a state that is not JSON: \(error)")
        }
        // Versions count inputs from 0: never near Int.max, and clamped rather than trapped.
        return [
            "feature": .string(feature.name), "stateVersion": .integer(feature.stateVersion ?? 1),
            "version": .integer(Int(clamping: state.version)), "state": value
        ]
    }

    /// The creation options that restore `saved`: "state", and "stateVersion" when it
    /// differs from the library's. Checks what a library without options, or from before
    /// state versions, cannot restore.
    static func options(
        for saved: Saved?, from path: String?, in library: HostedLibrary, feature: Manifest.Feature
    ) throws(CLIError) -> [JSONMember] {
        guard let saved else { return [] }
        let file = "state file \(path ?? "")"
        guard let current = feature.stateVersion else {
            // A library from before state versions reads only version 1.
            guard saved.stateVersion == 1 else {
                throw CLIError(
                    .stateFile,
                    "\(file) was saved at state version \(saved.stateVersion) of \"\(feature.name)\"; \(library.path) is older than state versions and reads only version 1"
                )
            }
            return [JSONMember("state", saved.state)]
        }
        return saved.stateVersion == current
            ? [JSONMember("state", saved.state)]
            : [JSONMember("state", saved.state), JSONMember("stateVersion", .integer(saved.stateVersion))]
    }

    /// Makes the instance a run starts with: with `options` (from `options(for:…)` and
    /// more), or, for a library without fk_create_with_options (nil), from the saved
    /// state alone. Errors about the state name the file.
    static func create(
        _ saved: Saved?, from path: String?, in library: HostedLibrary, feature: Manifest.Feature, options: JSONValue?
    ) throws(CLIError) -> HostedInstance {
        do throws(FusionHostError) {
            if let options { return try library.create(feature: feature.name, options: options) }
            return try library.create(feature: feature.name, stateJSON: saved?.state.jsonText)
        } catch {
            if error.status == .invalidState, let path {
                throw CLIError(.stateFile, "state file \(path) does not fit feature \"\(feature.name)\": \(error)")
            }
            throw CLIError(error)
        }
    }

    /// The state saved in `path`, or nil when there is no such file yet.
    static func load(_ path: String, feature: String) throws(CLIError) -> Saved? {
        guard access(path, F_OK) == 0 else { return nil }
        let bytes = try read(path)
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw CLIError(.stateFile, "state file \(path) is not JSON: \(error)")
        }
        if let saved = document["feature"]?.stringValue, saved != feature {
            throw CLIError(.stateFile, "state file \(path) holds a state of feature \"\(saved)\", not \"\(feature)\"")
        }
        guard let state = document["state"], state.members != nil else {
            throw CLIError(.stateFile, "state file \(path) has no \"state\" object; expected {\"feature\":…,\"state\":{…}}")
        }
        var version = 1
        if let listed = document["stateVersion"] {
            guard let number = listed.integerValue, number >= 1, number <= Int32.max else {
                throw CLIError(
                    .stateFile, "state file \(path) has a \"stateVersion\" that is not a whole number from 1: \(listed.jsonText)")
            }
            version = Int(number)
        }
        return Saved(state: state, stateVersion: version)
    }

    static func save(_ path: String, feature: Manifest.Feature, state: InstanceState) throws(CLIError) {
        let text = try document(feature: feature, state: state).prettyText() + "\n"
        let (destination, mode) = target(of: path)
        // Write beside it and rename, so an interrupted save never leaves half a file.
        let temporary = "\(destination).\(getpid()).tmp"
        guard let file = fopen(temporary, "w") else {
            throw CLIError(.failure, "cannot write state file \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        let kept = mode.map { fchmod(fileno(file), $0) == 0 } ?? true
        let closed = fclose(file)
        guard written == bytes.count, kept, closed == 0, rename(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CLIError(.failure, "cannot write state file \(path): \(reason)")
        }
    }

    private static func read(_ path: String) throws(CLIError) -> [UInt8] {
        do throws(FileBytes.Failure) {
            return try FileBytes.read(path)
        } catch {
            throw CLIError(.stateFile, "cannot read state file \(path): \(error.reason)")
        }
    }

    /// Where a save goes: the file a symbolic link at `path` points to (a save replaces the
    /// file, which would put a file in the link's place), with the mode the file has now
    /// (a new file gets the umask's); `path` itself when it is not a link.
    private static func target(of path: String) -> (path: String, mode: mode_t?) {
        var resolved = path
        var link = stat()
        if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK, let real = realpath(path, nil) {
            resolved = String(cString: real)
            free(real)
        }
        var status = stat()
        return (resolved, stat(resolved, &status) == 0 ? status.st_mode & 0o7777 : nil)
    }
}
