import FusionHost

// manifest.swift: the host reading a hostile manifest (the shared parser,
// Sources/FusionJSON/JSONParser.swift, and FusionHost's Manifest model).
//
// The fuzz input is what a library's fk_manifest hands over (manifest_library.c, a
// library that is only that); HostedLibrary loads it as any host does. Loading either
// works, giving a model whose every feature can be looked up by its name, or fails
// with `invalidManifest` and words saying why; never a crash.
#if canImport(Glibc)
    import Glibc
#endif

/// The manifest-only library beside this executable, and its fuzz_set_manifest.
private struct FakeLibrary: @unchecked Sendable {
    let path: String
    let setManifest: @convention(c) (UnsafePointer<UInt8>?, Int) -> Void

    static let shared: FakeLibrary = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(count > 0, "cannot find this executable")
        var executable = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while let last = executable.last, last != "/" { executable.removeLast() }
        let path = executable + "libfuzzmanifest.so"
        // Kept open for the whole run, so that the host's dlclose of a refused library
        // never unloads it (and the manifest set below stays the one it reads).
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL), let symbol = dlsym(handle, "fuzz_set_manifest") else {
            preconditionFailure("cannot load \(path)")
        }
        return FakeLibrary(path: path, setManifest: unsafeBitCast(symbol, to: (@convention(c) (UnsafePointer<UInt8>?, Int) -> Void).self))
    }()
}

private func load(_ path: String) throws(FusionHostError) -> Manifest { try HostedLibrary(path: path).manifest() }

@c(LLVMFuzzerTestOneInput)
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let fake = FakeLibrary.shared
    fake.setManifest(data, size)
    do {
        let manifest = try load(fake.path)
        for feature in manifest.features {
            precondition(manifest.feature(named: feature.name) != nil, "feature \(feature.name) cannot be found by its name")
            for input in feature.inputs {
                precondition(feature.input(named: input.name) != nil)
                for field in input.fields { precondition(input.field(named: field.name) != nil) }
            }
        }
        _ = manifest.json.jsonText
    } catch {
        guard case .invalidManifest = error else { preconditionFailure("loading failed other than for its manifest: \(error)") }
        precondition(!"\(error)".isEmpty)
    }
    return 0
}
