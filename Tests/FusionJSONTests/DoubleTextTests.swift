@_spi(FusionKit) import FusionJSON
import Testing

@Suite struct DoubleTextTests {
    @Test func doublesAreWrittenAsDescriptionWritesThem() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [
            0.001, 0.0001, 0.00011, 999_999_999.5, 1e9 + 0.5, -0.05, 0.1 + 0.2, Double.leastNonzeroMagnitude, .greatestFiniteMagnitude,
            1.7976931348623157e308, 123.4567, 0.3
        ]
        for _ in 0..<200_000 {
            values.append(Double(bitPattern: generator.next()))
            let decimals = Int.random(in: 1...6)
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            values.append(Double(Int.random(in: -2_000_000_000...2_000_000_000)) / scale)
        }
        var mismatches: [String] = []
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DoubleText.capacity) { buffer in
            for value in values where value.isFinite && value != value.rounded(.towardZero) {
                let length = DoubleText.write(value, into: buffer.baseAddress!)
                let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[..<length]), as: UTF8.self)
                if text != value.description, mismatches.count < 5 { mismatches.append("\(value.description) written as \(text)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }
}
