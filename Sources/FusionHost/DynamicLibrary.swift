#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How this platform names a shared library: libName.so on Linux and the other ELF
/// systems, libName.dylib on macOS, Name.dll on Windows. The one place hosts ask.
public enum SharedLibraryName {
    public static func forLibrary(_ name: String) -> String {
        #if os(macOS) || os(iOS)
            return "lib\(name).dylib"
        #elseif os(Windows)
            return "\(name).dll"
        #else
            return "lib\(name).so"
        #endif
    }

    /// Whether a file name looks like a shared library on any platform FusionKit
    /// knows (a host may be handed one built elsewhere): .so (also .so.1), .dylib, .dll.
    public static func looksLikeLibrary(_ word: String) -> Bool {
        word.hasSuffix(".so") || word.contains(".so.") || word.hasSuffix(".dylib") || word.hasSuffix(".dll") || word.hasSuffix(".wasm")
    }
}

/// A shared object opened with dlopen, and symbol lookup in it: the host's one
/// platform-specific place for loading (a Windows port adds LoadLibrary here).
///
/// RTLD_LOCAL keeps the library's `fk_` symbols out of the global namespace, so two
/// FusionKit libraries in one process never bind to each other's functions.
/// RTLD_NOW makes a library with unresolved dependencies fail here, with dlerror's
/// words, rather than at some later call.
struct DynamicLibrary: @unchecked Sendable {
    // @unchecked: the handle is an opaque token; dlsym is thread-safe.
    let path: String
    private let handle: UnsafeMutableRawPointer

    init(path: String) throws(FusionHostError) {
        _ = dlerror()  // clear a stale message of this thread
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            var reason = Self.lastError() ?? "dlopen failed"
            // dlerror starts with the path, which the error names already.
            if reason.hasPrefix(path + ": ") { reason.removeFirst(path.count + 2) }
            throw .cannotLoad(path: path, reason: reason)
        }
        self.path = path
        self.handle = handle
    }

    /// The address of an exported symbol, or nil when the library does not export it.
    func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(handle, name)
    }

    /// Unloads the library. Only for a library that was refused: once features ran,
    /// their threads and Swift runtime metadata may still point into it.
    func close() {
        dlclose(handle)
    }

    private static func lastError() -> String? {
        guard let message = dlerror() else { return nil }
        return String(cString: message)
    }
}
