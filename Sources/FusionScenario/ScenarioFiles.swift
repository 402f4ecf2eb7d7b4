import FusionHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The scenario files a runner is given: files as they are, folders searched (all
/// their subfolders too) for `*.scenario.json`, sorted.
public enum ScenarioFiles {
    public static let suffix = ".scenario.json"

    public static func collect(_ paths: [String]) throws(ScenarioFileError) -> [String] {
        var files: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { throw ScenarioFileError(path: path, reason: "no such file or folder") }
            if info.st_mode & S_IFMT == S_IFDIR {
                files += search(path).sorted()
            } else {
                files.append(path)
            }
        }
        return files
    }

    private static func search(_ folder: String) -> [String] {
        var found: [String] = []
        for name in FileBytes.names(inFolder: folder) where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                found += search(path)
            } else if name.hasSuffix(suffix) {
                found.append(path)
            }
        }
        return found
    }
}
