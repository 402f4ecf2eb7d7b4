#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FusionHost

/// The file `--state FILE` reads and writes: the same document `fusion send --json`
/// prints, `{"feature":"counter","version":2,"state":{…}}`, so either can feed the
/// next run. Only "state" is needed to start from; "feature", when present, must
/// name the feature being run.
enum StateFile {
    static func document(feature: String, state: InstanceState) throws(CLIError) -> JSONValue {
        let value: JSONValue
        do {
            value = try state.value()
        } catch {
            throw CLIError(.failure, "the library returned a state that is not JSON: \(error)")
        }
        // Versions count inputs from 0: never near Int.max, and clamped rather than trapped.
        return ["feature": .string(feature), "version": .integer(Int(clamping: state.version)), "state": value]
    }

    /// The state saved in `path` as JSON text, or nil when there is no such file yet.
    static func load(_ path: String, feature: String) throws(CLIError) -> String? {
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
        return state.jsonText
    }

    static func save(_ path: String, feature: String, state: InstanceState) throws(CLIError) {
        let text = try document(feature: feature, state: state).prettyText() + "\n"
        // Write beside it and rename, so an interrupted save never leaves half a file.
        let temporary = "\(path).\(getpid()).tmp"
        guard let file = fopen(temporary, "w") else {
            throw CLIError(.failure, "cannot write state file \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        let closed = fclose(file)
        guard written == bytes.count, closed == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CLIError(.failure, "cannot write state file \(path): \(reason)")
        }
    }

    private static func read(_ path: String) throws(CLIError) -> [UInt8] {
        guard let file = fopen(path, "r") else {
            throw CLIError(.stateFile, "cannot read state file \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes.append(contentsOf: chunk[0..<count])
            if count < chunk.count { break }
        }
        guard ferror(file) == 0 else {
            throw CLIError(.stateFile, "cannot read state file \(path): \(String(cString: strerror(errno)))")
        }
        return bytes
    }
}
