// The wasm module's exports for the probe: memory for the input, and the answer as a
// NUL-terminated string the caller reads (and leaves: the module lives for one test).

@_expose(wasm, "probe_alloc")
@_cdecl("probe_alloc")
public func probeAlloc(_ count: Int32) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer.allocate(byteCount: Int(count), alignment: 8)
}

@_expose(wasm, "probe_run")
@_cdecl("probe_run")
public func probeRun(_ input: UnsafeRawPointer, _ count: Int32) -> UnsafeMutableRawPointer {
    let answer = Array(probe(Array(UnsafeRawBufferPointer(start: input, count: Int(count)))).utf8) + [0]
    let out = UnsafeMutableRawPointer.allocate(byteCount: answer.count, alignment: 1)
    answer.withUnsafeBytes { out.copyMemory(from: $0.baseAddress!, byteCount: answer.count) }
    return out
}
