/// Whether UTF-8 text can be written between quotes as it is.
///
/// Public to FusionKit only (`@_spi`) and `@inlinable`: FusionKit's stream encoder scans
/// every string field with it, from another module, and a call per field costs. (A
/// `package` declaration would do, but Swift 6.3 does not inline its body across modules.)
@_spi(FusionKit) public enum JSONEscaping {
    /// True when some byte must be escaped: a control character, `"` or `\`. Reads eight
    /// bytes at a time (the usual bit tricks for "some byte below n" and "some byte equal
    /// to c"), because most text has nothing to escape and the scan is on every string.
    @inlinable @inline(__always)
    public static func needsEscaping(_ base: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        while index + 8 <= length {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let control = (word &- ones &* 0x20) & ~word
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let hits = control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
            if hits & highs != 0 { return true }
            index += 8
        }
        while index < length {
            let byte = base[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C { return true }
            index += 1
        }
        return false
    }
}
