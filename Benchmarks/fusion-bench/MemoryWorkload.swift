import CFusionKit
import Foundation
import FusionExamples
import FusionKit
import HeapProbe

/// 10,000 Counter instances alive at once, created through the C ABI; and, as the
/// baseline, 10,000 bare Swift stores of the same feature. Two measures of each: the
/// resident memory added (what the issue asks, but pages are coarse and malloc reuses
/// what earlier work freed, so it moves between runs), and the heap bytes handed out by
/// malloc (mallinfo2), which repeat exactly. Each measurement runs in a fresh process
/// (`fusion-bench --memory-child`), so that what other workloads left in malloc's free
/// lists cannot make an instance look smaller than it is.
enum MemoryWorkload {
    struct Result {
        let count: Int
        let abiBytesPerInstance: Double
        let storeBytesPerInstance: Double
        let abiHeapPerInstance: Double
        let storeHeapPerInstance: Double

        var json: [String: Any] {
            [
                "count": count, "abiResidentPerInstance": abiBytesPerInstance, "abiHeapPerInstance": abiHeapPerInstance,
                "storeResidentPerInstance": storeBytesPerInstance, "storeHeapPerInstance": storeHeapPerInstance
            ]
        }
    }

    /// `runs` measurements, each in a fresh process running this executable with `--memory-child`.
    static func runInFreshProcesses(_ runs: Int) -> [Result] {
        (0..<runs).compactMap { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            process.arguments = ["--memory-child"]
            let pipe = Pipe()
            process.standardOutput = pipe
            guard (try? process.run()) != nil else { return nil }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0,
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Double]
            else { return nil }
            return Result(
                count: Int(json["count"] ?? 0), abiBytesPerInstance: json["abiResidentPerInstance"] ?? .nan,
                storeBytesPerInstance: json["storeResidentPerInstance"] ?? .nan, abiHeapPerInstance: json["abiHeapPerInstance"] ?? .nan,
                storeHeapPerInstance: json["storeHeapPerInstance"] ?? .nan)
        }
    }

    static func run() -> Result {
        let count = 10_000
        var stores: [Store<Counter>] = []
        let (storeBytes, storeHeap) = growth {
            stores = (0..<count).map { _ in Store<Counter>() }
        }
        var handles: [fk_instance] = []
        let (abiBytes, abiHeap) = growth {
            handles = (0..<count).map { _ in
                var handle: fk_instance = 0
                _ = fk_create("counter", FK_NUL_TERMINATED, nil, 0, &handle)
                _ = fk_send(handle, "\"increase\"", FK_NUL_TERMINATED)
                return handle
            }
        }
        for handle in handles { _ = fk_destroy(handle) }
        withExtendedLifetime(stores) {}
        let per = { (bytes: Int) in Double(bytes) / Double(count) }
        return Result(
            count: count, abiBytesPerInstance: per(abiBytes), storeBytesPerInstance: per(storeBytes),
            abiHeapPerInstance: per(abiHeap), storeHeapPerInstance: per(storeHeap))
    }

    /// Resident memory (from /proc/self/statm) and malloc'd bytes added while `body` runs.
    private static func growth(_ body: () -> Void) -> (resident: Int, heap: Int) {
        let before = (residentBytes(), heapBytes())
        body()
        return (residentBytes() - before.0, heapBytes() - before.1)
    }

    static func heapBytes() -> Int { Int(heap_probe_bytes_in_use()) }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
