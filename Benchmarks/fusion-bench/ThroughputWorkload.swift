import CFusionKit
import Foundation

/// Inputs per second through the C ABI: one thread to one instance, then two threads
/// each to its own instance, to see how the core scales across cores.
enum ThroughputWorkload {
    struct Result {
        let oneThread: Double
        let twoThreads: Double
        var scaling: Double { twoThreads / oneThread }
    }

    static func run(rounds: Int) -> Result {
        let perThread = 200_000
        var one: [Double] = []
        var two: [Double] = []
        for _ in 0..<rounds {
            one.append(Double(perThread) / seconds { drive(inputs: perThread) })
            two.append(Double(2 * perThread) / seconds {
                let group = DispatchGroup()
                for _ in 0..<2 {
                    group.enter()
                    Thread.detachNewThread {
                        drive(inputs: perThread)
                        group.leave()
                    }
                }
                group.wait()
            })
        }
        return Result(oneThread: Harness.median(one), twoThreads: Harness.median(two))
    }

    private static func drive(inputs: Int) {
        var handle: fk_instance = 0
        guard fk_create("counter", FK_NUL_TERMINATED, nil, 0, &handle) == FK_OK else { return }
        let increase = Array("\"increase\"".utf8CString)
        increase.withUnsafeBufferPointer { input in
            for _ in 0..<inputs { _ = fk_send(handle, input.baseAddress, input.count - 1) }
        }
        _ = fk_destroy(handle)
    }

    private static func seconds(_ body: () -> Void) -> Double {
        let elapsed = ContinuousClock().measure(body)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
