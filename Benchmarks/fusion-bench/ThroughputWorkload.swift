import CFusionKit
import Foundation

/// Inputs per second through the C ABI: one thread to one instance, then two threads
/// each to its own instance, to see how the core scales across cores; next to the same
/// two shapes of pure CPU work (no library, no memory traffic), measured in the same
/// rounds, which says how much two threads can gain on this machine right now. Also one
/// instance driven from two threads at once: every input must be applied.
enum ThroughputWorkload {
    /// Per second, one sample per round of each, in round order.
    struct Result {
        let oneThread: [Double]
        let twoThreads: [Double]
        let sharedInstance: [Double]
        let controlOne: [Double]
        let controlTwo: [Double]
        /// Inputs lost when two threads drive one instance (its version against the inputs sent).
        let lostInputs: Int
    }

    /// Runs of each shape per round (see `run`).
    static let slices = 3

    static func run(rounds: Int) -> Result {
        let perThread = 200_000
        let cpuWork = 4_000_000
        var one: [Double] = []
        var two: [Double] = []
        var shared: [Double] = []
        var controlOne: [Double] = []
        var controlTwo: [Double] = []
        var lost = 0
        let instances = (0..<3).map { _ in create() }
        defer { for handle in instances { _ = fk_destroy(handle) } }
        for _ in 0..<rounds {
            // Each shape's rate in a round is the median of `slices` runs, the shapes
            // interleaved: a spell in which the host takes one of the two cores away lands
            // in one run of one shape, not in the round's ratio.
            var (sliceControlOne, sliceOne, sliceTwo, sliceControlTwo) = ([Double](), [Double](), [Double](), [Double]())
            for _ in 0..<slices {
                sliceControlOne.append(Double(cpuWork) / seconds { spin(cpuWork) })
                sliceOne.append(Double(perThread) / seconds { drive(instances[0], inputs: perThread) })
                sliceTwo.append(
                    Double(2 * perThread)
                        / seconds {
                            inParallel({ drive(instances[0], inputs: perThread) }, { drive(instances[1], inputs: perThread) })
                        })
                sliceControlTwo.append(Double(2 * cpuWork) / seconds { inParallel({ spin(cpuWork) }, { spin(cpuWork) }) })
            }
            controlOne.append(Harness.median(sliceControlOne))
            one.append(Harness.median(sliceOne))
            two.append(Harness.median(sliceTwo))
            controlTwo.append(Harness.median(sliceControlTwo))
            let before = version(instances[2])
            shared.append(
                Double(2 * perThread)
                    / seconds {
                        inParallel({ drive(instances[2], inputs: perThread) }, { drive(instances[2], inputs: perThread) })
                    })
            lost += 2 * perThread - Int(version(instances[2]) - before)
        }
        return Result(
            oneThread: one, twoThreads: two, sharedInstance: shared, controlOne: controlOne, controlTwo: controlTwo, lostInputs: lost)
    }

    private static func create() -> fk_instance {
        var handle: fk_instance = 0
        _ = fk_create("counter", FK_NUL_TERMINATED, nil, 0, &handle)
        return handle
    }

    private static func version(_ handle: fk_instance) -> UInt64 {
        var version: UInt64 = 0
        _ = fk_version(handle, &version)
        return version
    }

    private static func drive(_ handle: fk_instance, inputs: Int) {
        let increase = Array("\"increase\"".utf8CString)
        increase.withUnsafeBufferPointer { input in
            for _ in 0..<inputs { _ = fk_send(handle, input.baseAddress, input.count - 1) }
        }
    }

    /// Pure CPU work: a SplitMix64 chain in registers, its result kept so it is not optimized out.
    private static func spin(_ steps: Int) {
        var state: UInt64 = 0x1234_5678
        var mixed: UInt64 = 0
        for _ in 0..<steps {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= z ^ (z >> 31)
        }
        sink.store(mixed)
    }

    private final class Sink: @unchecked Sendable {
        private let lock = NSLock()
        private var value: UInt64 = 0
        func store(_ new: UInt64) { lock.withLock { value ^= new } }
    }
    private static let sink = Sink()

    /// Runs both bodies on two new threads, started together, and returns when both end.
    private static func inParallel(_ a: @escaping @Sendable () -> Void, _ b: @escaping @Sendable () -> Void) {
        let group = DispatchGroup()
        for body in [a, b] {
            group.enter()
            Thread.detachNewThread {
                body()
                group.leave()
            }
        }
        group.wait()
    }

    private static func seconds(_ body: () -> Void) -> Double {
        let elapsed = ContinuousClock().measure(body)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
