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
        /// Where an ABI instance's heap goes, by part (`Part`), each measured alone.
        let parts: [String: Double]

        var json: [String: Any] {
            [
                "count": count, "abiResidentPerInstance": abiBytesPerInstance, "abiHeapPerInstance": abiHeapPerInstance,
                "storeResidentPerInstance": storeBytesPerInstance, "storeHeapPerInstance": storeHeapPerInstance,
                "parts": parts
            ]
        }
    }

    /// The parts of an instance made through the C ABI, in the order `fk_create` makes them.
    enum Part: String, CaseIterable {
        /// `InstanceOptions.makeEnvironment`: the random source and the host-request table,
        /// each with its lock (the system clock is a value; no allocation).
        case environment
        /// The `Store` (state, version, effect and request bookkeeping, its lock); the
        /// effect executor and the change notifier are made only when needed (a manual
        /// clock; a first subscriber), so a Counter on the system clock has neither.
        case store
        /// The feature's instance object (`JSONStore`) and the closures the ABI calls.
        case instance
        /// What `fk_create` adds: the instance table's slot and its share of the table (and
        /// the library's one-time work, over all the instances).
        case tableSlot
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
                let json = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?.compactMapValues({ $0 as? Double })
            else { return nil }
            return Result(
                count: Int(json["count"] ?? 0), abiBytesPerInstance: json["abiResidentPerInstance"] ?? .nan,
                storeBytesPerInstance: json["storeResidentPerInstance"] ?? .nan, abiHeapPerInstance: json["abiHeapPerInstance"] ?? .nan,
                storeHeapPerInstance: json["storeHeapPerInstance"] ?? .nan,
                parts: (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["parts"] as? [String: Double] ?? [:])
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
        // After the measures above, so that they run in an untouched process.
        let parts = partsHeap(count: count)
        let per = { (bytes: Int) in Double(bytes) / Double(count) }
        var heapByPart = parts
        heapByPart[.tableSlot] = abiHeap - parts.values.reduce(0, +)
        return Result(
            count: count, abiBytesPerInstance: per(abiBytes), storeBytesPerInstance: per(storeBytes),
            abiHeapPerInstance: per(abiHeap), storeHeapPerInstance: per(storeHeap),
            parts: [String: Double](uniqueKeysWithValues: heapByPart.map { ($0.key.rawValue, per($0.value)) }))
    }

    /// The heap each part of an ABI instance takes, for `count` Counters: environments
    /// alone; then stores, and whole instances, on environments made beforehand. Heap in
    /// use is counted exactly whatever malloc reuses, so this runs after the ABI's measure
    /// and the table slot is what `fk_create` took beyond these parts (with the library's
    /// one-time work, shared by the 10,000).
    private static func partsHeap(count: Int) -> [Part: Int] {
        let options = InstanceOptions()
        let definition = FeatureDefinition(Counter.self)
        var environments: [Environment] = []
        let environment = growth { environments = (0..<count).map { _ in options.makeEnvironment() } }.heap
        var stores: [Store<Counter>] = []
        let store = growth { stores = environments.map { Store<Counter>(environment: $0) } }.heap
        withExtendedLifetime(stores) {}
        stores = []
        var instances: [any FeatureInstance] = []
        let instance = growth {
            instances = environments.map { environment in
                let made = try? definition.makeInstance(environment: environment)
                ("\"increase\"" as StaticString).withUTF8Buffer { _ = try? made?.send(json: UnsafeRawBufferPointer($0)) }
                return made!
            }
        }.heap
        withExtendedLifetime(instances) {}
        return [.environment: environment, .store: store, .instance: instance - store]
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
