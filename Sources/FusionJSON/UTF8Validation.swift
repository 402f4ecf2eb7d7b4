/// UTF-8 well-formedness as RFC 3629 defines it (no overlong forms, no surrogates,
/// nothing above U+10FFFF).
public enum UTF8Validation {
    /// Whether the bytes are well-formed UTF-8 (the web bridge's check of a text message,
    /// which RFC 6455 asks for before the message is read as anything).
    public static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { firstInvalidOffset(in: $0) == nil }
    }

    /// The offset of the first byte that starts an ill-formed sequence, or nil.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var i = 0
        let n = bytes.count
        while i < n {
            // Skip ASCII eight bytes at a time: most JSON is ASCII.
            while i + 8 <= n {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
            guard i < n else { return nil }
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            let b1 = bytes[i + 1]
            guard b1 >= lower && b1 <= upper else { return i }
            for k in 2..<max(2, length) where bytes[i + k] & 0xC0 != 0x80 {
                return i
            }
            i += length
        }
        return nil
    }
}
