import CFusionKit
import FusionExamples
import FusionKit
import Foundation

/// 10,000 Counter instances alive at once, created through the C ABI; and, as the
/// baseline, 10,000 bare Swift stores of the same feature.
enum MemoryWorkload {
    struct Result {
        let count: Int
        let abiBytesPerInstance: Double
        let storeBytesPerInstance: Double
    }

    static func run() -> Result {
        let count = 10_000
        var stores: [Store<Counter>] = []
        let storeBytes = growth {
            stores = (0..<count).map { _ in Store<Counter>() }
        }
        var handles: [fk_instance] = []
        let abiBytes = growth {
            handles = (0..<count).map { _ in
                var handle: fk_instance = 0
                _ = fk_create("counter", FK_NUL_TERMINATED, nil, 0, &handle)
                _ = fk_send(handle, "\"increase\"", FK_NUL_TERMINATED)
                return handle
            }
        }
        for handle in handles { _ = fk_destroy(handle) }
        withExtendedLifetime(stores) {}
        return Result(count: count, abiBytesPerInstance: Double(abiBytes) / Double(count), storeBytesPerInstance: Double(storeBytes) / Double(count))
    }

    /// Resident memory added while `body` runs, from /proc/self/statm.
    private static func growth(_ body: () -> Void) -> Int {
        let before = residentBytes()
        body()
        return residentBytes() - before
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
