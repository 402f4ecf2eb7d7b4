import FusionKit

/// A value shared by a test's threads, under the core's pthread lock. Not
/// Synchronization's `Mutex`: ThreadSanitizer does not see its futexes, so it reports
/// every access from two threads as a race (scripts/test-reliability runs these tests
/// under it).
final class Locked<Value>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
