import FusionKit

/// The live instances, by handle.
///
/// Handles are numbers, not pointers, so that a stale, destroyed or made-up handle is
/// a failed lookup rather than a dereference. They are never reused in a process: a
/// counter spread over 64 bits by an odd multiplier (a bijection), so that small
/// made-up numbers like 1 or 42 do not hit a live instance by accident.
final class InstanceTable: @unchecked Sendable {
    private let lock = ConditionLock()
    private var instances: [UInt64: any FeatureInstance] = [:]
    private var created: UInt64 = 0

    static let shared = InstanceTable()

    func insert(_ instance: any FeatureInstance) -> UInt64 {
        lock.withLock {
            created += 1
            let handle = created &* 0x9E37_79B9_7F4A_7C15
            instances[handle] = instance
            return handle
        }
    }

    func lookup(_ handle: UInt64) throws(FusionError) -> any FeatureInstance {
        lock.lock()
        let instance = instances[handle]
        lock.unlock()
        guard let instance else { throw Self.invalid(handle) }
        return instance
    }

    func remove(_ handle: UInt64) throws(FusionError) -> any FeatureInstance {
        lock.lock()
        let instance = instances.removeValue(forKey: handle)
        lock.unlock()
        guard let instance else { throw Self.invalid(handle) }
        return instance
    }

    var count: Int { lock.withLock { instances.count } }

    private static func invalid(_ handle: UInt64) -> FusionError {
        if handle == 0 { return FusionError(.invalidHandle, "instance handle is 0, which is never a live instance") }
        return FusionError(.invalidHandle, "instance \(handle) is not a live instance: it was destroyed, or never created by this library")
    }
}
