/// Copies `source` and a NUL after it into `buffer` when both fit (as snprintf does,
/// nothing is cut short); returns `source.count` either way: how the state reaches a
/// caller's buffer.
@usableFromInline
func copyTerminated(_ source: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    if source.count < buffer.count, let target = buffer.baseAddress {
        if let start = source.baseAddress { target.copyMemory(from: start, byteCount: source.count) }
        target.storeBytes(of: 0, toByteOffset: source.count, as: UInt8.self)
    }
    return source.count
}
