import FusionKit

/// The live instances, by handle.
///
/// Handles are numbers, not pointers, so that a stale, destroyed or made-up handle is
/// a failed lookup rather than a dereference. They are never reused in a process: a
/// counter spread over 64 bits by an odd multiplier (a bijection), so that small
/// made-up numbers like 1 or 42 do not hit a live instance by accident. The counter
/// starts at a random point in each loaded library, so that two libraries in one
/// process hand out different handles, and one's handle given to the other is
/// refused as invalid instead of reaching an instance of its own.
///
/// Every call through the ABI looks its handle up, so the table is its own small hash
/// map rather than a `Dictionary`: the handles' top bits are already well mixed by the
/// multiplier, so they index the slots directly (no hashing), with linear probing.
final class InstanceTable: @unchecked Sendable {
    private let lock = ConditionLock()
    // Only touched with `lock` held.
    @exclusivity(unchecked) private var handles: [UInt64]
    @exclusivity(unchecked) private var instances: [(any FeatureInstance)?]
    @exclusivity(unchecked) private var live = 0
    @exclusivity(unchecked) private var created: UInt64 = 0
    /// log2 of the slot count.
    @exclusivity(unchecked) private var bits: Int

    static let shared = InstanceTable()

    init() {
        var random = SystemRandomNumberGenerator()
        created = random.next()
        bits = 6
        handles = Array(repeating: 0, count: 1 << bits)
        instances = Array(repeating: nil, count: 1 << bits)
    }

    func insert(_ instance: any FeatureInstance) -> UInt64 {
        lock.withLock {
            created &+= 1
            if created == 0 { created = 1 }  // 0 is never a handle
            let handle = created &* 0x9E37_79B9_7F4A_7C15
            // At most half full, so probes stay short and an empty slot always exists.
            if (live + 1) * 2 > handles.count { grow() }
            place(handle, instance)
            live += 1
            return handle
        }
    }

    func lookup(_ handle: UInt64) throws(FusionError) -> any FeatureInstance {
        lock.lock()
        let found = slot(of: handle).map { instances[$0]! }
        lock.unlock()
        guard let found else { throw Self.invalid(handle) }
        return found
    }

    func remove(_ handle: UInt64) throws(FusionError) -> any FeatureInstance {
        lock.lock()
        guard let index = slot(of: handle) else {
            lock.unlock()
            throw Self.invalid(handle)
        }
        let instance = instances[index]!
        delete(at: index)
        live -= 1
        lock.unlock()
        return instance
    }

    var count: Int { lock.withLock { live } }

    // MARK: the map (lock held)

    @inline(__always) private func home(_ handle: UInt64) -> Int {
        Int(truncatingIfNeeded: handle >> UInt64(64 - bits))
    }

    @inline(__always) private func slot(of handle: UInt64) -> Int? {
        guard handle != 0 else { return nil }  // 0 marks an empty slot
        let mask = handles.count - 1
        var index = home(handle)
        while true {
            let stored = handles[index]
            if stored == handle { return index }
            if stored == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    private func place(_ handle: UInt64, _ instance: any FeatureInstance) {
        let mask = handles.count - 1
        var index = home(handle)
        while handles[index] != 0 { index = (index + 1) & mask }
        handles[index] = handle
        instances[index] = instance
    }

    /// Empties a slot and moves later members of its probe run back, so that lookups
    /// can stop at the first empty slot (no tombstones).
    private func delete(at start: Int) {
        let mask = handles.count - 1
        var hole = start
        var index = start
        while true {
            index = (index + 1) & mask
            let handle = handles[index]
            if handle == 0 { break }
            let wanted = home(handle)
            // Move it into the hole unless its home lies cyclically in (hole, index].
            let homeAfterHole = hole <= index ? (wanted > hole && wanted <= index) : (wanted > hole || wanted <= index)
            if homeAfterHole { continue }
            handles[hole] = handle
            instances[hole] = instances[index]
            hole = index
        }
        handles[hole] = 0
        instances[hole] = nil
    }

    private func grow() {
        let oldHandles = handles
        let oldInstances = instances
        bits += 1
        handles = Array(repeating: 0, count: 1 << bits)
        instances = Array(repeating: nil, count: 1 << bits)
        for (handle, instance) in zip(oldHandles, oldInstances) where handle != 0 { place(handle, instance!) }
    }

    private static func invalid(_ handle: UInt64) -> FusionError {
        if handle == 0 { return FusionError(.invalidHandle, "instance handle is 0, which is never a live instance") }
        return FusionError(.invalidHandle, "instance \(handle) is not a live instance: it was destroyed, or never created by this library")
    }
}
