import WasmKit

#if canImport(Glibc)
    import Glibc
#endif

/// How much fuel the interpreter burns per second on this machine: what turns a time
/// limit into a fuel budget. Measured once per process, on first use, by running a
/// counting loop (a module of 45 bytes, below) three times for 5 ms or more, fuel metered.
///
/// A loop of plain operators is the interpreter's fastest work: code heavier per
/// operator (calls, memory) burns fuel more slowly, so a budget runs out no sooner than
/// the time limit, and later by how much heavier the code is (docs/plugin-libraries.md
/// gives the measured spread).
enum FuelRate {
    static let perSecond: Double = measure()

    /// (module (func (export "spin") (param i32) (result i32)
    ///   (loop (br_if 0 (local.tee 0 (i32.sub (local.get 0) (i32.const 1))))) (local.get 0)))
    static let spinModule: [UInt8] = [
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
        0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f,
        0x03, 0x02, 0x01, 0x00,
        0x07, 0x08, 0x01, 0x04, 0x73, 0x70, 0x69, 0x6e, 0x00, 0x00,
        0x0a, 0x12, 0x01, 0x10, 0x00, 0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b, 0x20, 0x00, 0x0b
    ]

    private static func measure() -> Double {
        // A conservative fallback (a slow machine's rate) should the measurement fail.
        let fallback = 100_000_000.0
        do {
            let engine = Engine(configuration: EngineConfiguration(fuelMetering: true))
            let store = Store(engine: engine)
            let instance = try parseWasm(bytes: spinModule).instantiate(store: store)
            guard let spin = instance.exports[function: "spin"] else { return fallback }
            _ = try spin([.i32(1000)])  // translated before timing
            func rate(_ count: Int32) throws -> (perSecond: Double, seconds: Double) {
                store.fuel = Fuel(remaining: UInt64.max / 2)
                let start = ContinuousClock.now
                _ = try spin([.i32(UInt32(count))])
                let elapsed = ContinuousClock.now - start
                let used = Double(UInt64.max / 2 - (store.fuel?.remaining ?? 0))
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                return (seconds > 0 ? used / seconds : 0, seconds)
            }
            // Loops long enough to time (5 ms), found by doubling: as many iterations as
            // this build of the interpreter needs, not a count that costs a debug build a
            // second per process.
            var count: Int32 = 50_000
            var best = try rate(count)
            while best.seconds < 0.005 && count < 1 << 28 {
                count *= 2
                best = try rate(count)
            }
            // The best of three: a rate measured while another thread held the core
            // would make every budget too small.
            for _ in 0..<2 { best.perSecond = max(best.perSecond, try rate(count).perSecond) }
            return best.perSecond > 0 ? best.perSecond : fallback
        } catch {
            return fallback
        }
    }
}
