import FusionKit
import Testing

/// `RandomSource.int(in:)` draws in 64-bit arithmetic everywhere (the WebAssembly module's
/// `Int` is 32 bits): natively it must still draw exactly what the standard library does,
/// or every seeded state saved, journaled or written in a scenario would change.
@Suite struct RandomSourceTests {
    @Test(arguments: [0, 1, 7, 42, 0xDEAD_BEEF] as [UInt64])
    func drawsWhatTheStandardLibraryDraws(seed: UInt64) {
        let ranges: [ClosedRange<Int>] = [0...0, 0...1, 0...5, 1...10, -3...3, 0...(1 << 40), Int.min...Int.max, (Int.max - 2)...Int.max]
        let ours = RandomSource(seed: seed)
        var theirs = RandomSource(seed: seed)
        for _ in 0..<200 {
            for range in ranges {
                #expect(ours.int(in: range) == Int.random(in: range, using: &theirs))
            }
        }
        #expect(ours.position == theirs.position)
    }
}
