#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The byte ranges of a struct's stored fields, nested structs' fields included: where
/// two values of the type must hold the same bits to be the same value. Not the padding
/// between fields, which copying a value leaves undefined. Comparing these ranges is how
/// `StateDiff` skips `==` for the many elements a change leaves alone.
enum IdentityRanges {
    typealias Ranges = [(offset: Int, length: Int)]

    /// The ranges of `type` from its plan's verdict (see `EncodingPlanBuilder`); nil for
    /// types without a plain verdict (not yet encoded, enums, classes, custom encoding).
    static func ranges(of type: any Encodable.Type, verdicts: [ObjectIdentifier: EncodingPlanBuilder.Verdict]) -> Ranges? {
        guard case .plain(let fields)? = verdicts[ObjectIdentifier(type)] else { return nil }
        var ranges: Ranges = []
        for field in fields {
            if let nested = Self.ranges(of: field.type, verdicts: verdicts) {
                ranges += nested.map { (field.offset + $0.offset, $0.length) }
            } else {
                // Any other field's bits, its own padding included: equal bits are equal
                // values; unequal ones only cost a call to `==`.
                ranges.append((field.offset, DiffPlan.size(of: field.type)))
            }
        }
        return merged(ranges)
    }

    /// Adjacent ranges joined: fewer, longer comparisons.
    static func merged(_ ranges: Ranges) -> Ranges {
        var result: Ranges = []
        for range in ranges.sorted(by: { $0.offset < $1.offset }) where range.length > 0 {
            if let last = result.last, last.offset + last.length == range.offset {
                result[result.count - 1].length += range.length
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// Whether the values at `a` and `b` hold the same bits in `ranges`.
    @inline(__always)
    static func same(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ ranges: UnsafeBufferPointer<(offset: Int, length: Int)>) -> Bool {
        for range in ranges {
            var index = range.offset
            let end = range.offset + range.length
            while index + 8 <= end {
                if a.loadUnaligned(fromByteOffset: index, as: UInt64.self) != b.loadUnaligned(fromByteOffset: index, as: UInt64.self) {
                    return false
                }
                index += 8
            }
            while index < end {
                if a.load(fromByteOffset: index, as: UInt8.self) != b.load(fromByteOffset: index, as: UInt8.self) { return false }
                index += 1
            }
        }
        return true
    }

    /// Whether two values hold the same bits, all of them: then they are the same value
    /// (padding that differs only means a slower answer elsewhere).
    static func sameBits<T>(_ a: T, _ b: T) -> Bool {
        withUnsafeBytes(of: a) { x in withUnsafeBytes(of: b) { y in sameBits(x.baseAddress, y.baseAddress, count: x.count) } }
    }

    /// `sameBits` for two values in place: no copies (and no retains) of either.
    @inline(__always)
    static func sameBits(_ a: UnsafeRawPointer?, _ b: UnsafeRawPointer?, count: Int) -> Bool {
        guard count > 0, let a, let b else { return true }
        return a == b || memcmp(a, b, count) == 0
    }
}
