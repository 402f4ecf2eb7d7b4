@_spi(FusionKit) import FusionJSON
import Testing

@Suite struct JSONEscapingTests {
    @Test func theEscapeScanFindsEveryByteThatNeedsEscaping() {
        for length in 0..<40 {
            for position in 0..<max(length, 1) {
                for special: UInt8 in [0x00, 0x1F, 0x22, 0x5C, 0x20, 0x7F, 0x80, 0xFF, 0x21, 0x5B, 0x5D] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    if length > 0 { bytes[position] = special }
                    let expected = bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
                    let found = bytes.withUnsafeBufferPointer {
                        JSONEscaping.needsEscaping($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count)
                    }
                    #expect(found == expected, "length \(length), byte \(special) at \(position)")
                }
            }
        }
    }
}
