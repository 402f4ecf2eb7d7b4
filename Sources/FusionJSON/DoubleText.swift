/// A `Double`'s shortest round-trip text, as `description` gives it, written straight
/// into a buffer. Values with few decimals, the common case in UI state, skip the
/// general algorithm and the `String` it builds. Tests compare the two on many values.
///
/// Public to FusionKit only (`@_spi`) and `@inlinable`: FusionKit's stream encoder writes
/// every `Double` field through it, from another module, and a call per field would cost
/// more than the short path itself. (A `package` declaration would do, but Swift 6.3
/// does not inline its body across modules.)
@_spi(FusionKit) public enum DoubleText {
    /// Room `write` needs: SwiftDtoa's longest form of a Double is under 32 bytes.
    @inlinable public static var capacity: Int { 32 }

    /// Writes the text of a finite, non-whole `value` at `buffer` and returns its length.
    @inlinable @inline(__always)
    public static func write(_ value: Double, into buffer: UnsafeMutablePointer<UInt8>) -> Int {
        if let length = writeShortDecimal(value, into: buffer) { return length }
        // The general case: the runtime's shortest-form algorithm, through `description`.
        // (Its C entry point, swift_float64ToString, was tried: in Swift 6.3 it leaves
        // some leading zeros unwritten, as tests showed.)
        var text = value.description
        return text.withUTF8 { utf8 in
            buffer.update(from: utf8.baseAddress!, count: utf8.count)
            return utf8.count
        }
    }

    /// Values with at most four decimals (0.9, 12.25, -3.125), the common case in UI
    /// state, without the general algorithm. For 0.001 ≤ |value| < 1e9, if m / 10^k
    /// (m, 10^k exact, the division correctly rounded) gives back the value, then the k
    /// decimals of m round-trip; trying k = 1, 2, … finds the fewest, which is the
    /// shortest form `description` prints, and the only one with that many decimals
    /// (doubles below 1e9 are closer together than 10^-4). Nil: use the general path.
    @inlinable @inline(__always)
    static func writeShortDecimal(_ value: Double, into buffer: UnsafeMutablePointer<UInt8>) -> Int? {
        let magnitude = value.magnitude
        guard magnitude >= 0.001, magnitude < 1e9 else { return nil }
        var scale = 10.0
        for decimals in 1...4 {
            // Rounded by truncating x + 0.5 (no libm call). Off by one at worst near a
            // half, and then the exact check below turns the candidate down.
            let digits = UInt64(magnitude * scale + 0.5)
            if Double(digits) / scale == magnitude {
                return format(digits, decimals: decimals, negative: value < 0, into: buffer)
            }
            scale *= 10
        }
        return nil
    }

    /// Writes `digits` with a decimal point `decimals` places from the right ("0.05").
    @inlinable
    static func format(_ digits: UInt64, decimals: Int, negative: Bool, into buffer: UnsafeMutablePointer<UInt8>) -> Int {
        var reversed: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits, written backwards
        return withUnsafeMutableBytes(of: &reversed) { scratch in
            var remaining = digits
            var count = 0
            // At least decimals + 1 digits: the leading "0" of "0.05" included.
            while remaining > 0 || count <= decimals {
                scratch[count] = 0x30 &+ UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
                count += 1
            }
            var length = 0
            if negative {
                buffer[0] = UInt8(ascii: "-")
                length = 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) {
                if index == decimals - 1 {
                    buffer[length] = UInt8(ascii: ".")
                    length += 1
                }
                buffer[length] = scratch[index]
                length += 1
            }
            return length
        }
    }
}
