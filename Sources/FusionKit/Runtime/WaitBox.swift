/// A continuation resumed at most once, from whichever thread gets there first.
final class WaitBox: @unchecked Sendable {
    private let lock = ConditionLock()
    private var continuation: CheckedContinuation<Void, Never>?
    var subscription: UInt64?

    func arm(_ continuation: CheckedContinuation<Void, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    func fire() {
        let pending = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            defer { continuation = nil }
            return continuation
        }
        pending?.resume()
    }
}
