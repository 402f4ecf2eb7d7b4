#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the web client (bindings/web) and the demo pages (examples/web) are, when
/// not given: in the FusionKit checkout that holds the running executable (SwiftPM
/// builds into .build/ inside it), else in the current directory or one of its parents.
public enum WebFolders {
    public static let clientFolder = "bindings/web"
    public static let pagesFolder = "examples/web"

    /// The checkout's root, or nil when none is found.
    public static func checkout() -> String? {
        var starts: [String] = []
        if let executable = StaticFiles.realPath("/proc/self/exe") { starts.append(parent(executable)) }
        if let current = StaticFiles.realPath(".") { starts.append(current) }
        for start in starts {
            var folder = start
            while true {
                if StaticFiles.isRegularFile(folder + "/" + clientFolder + "/fusionkit.js") { return folder }
                let up = parent(folder)
                if up == folder { break }
                folder = up
            }
        }
        return nil
    }

    public static func isFolder(_ path: String) -> Bool { StaticFiles.isDirectory(path) }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
