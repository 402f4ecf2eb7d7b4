/// Tells subscribers about state changes, in version order, one callback at a time,
/// with no lock held while a callback runs.
///
/// There is no delivery thread: the thread that made a change delivers it, unless
/// another thread is delivering already, in which case that one picks the change up
/// before it finishes. A callback may call back into the instance (send an input,
/// unsubscribe); changes it causes are delivered after it returns.
@usableFromInline
final class ChangeNotifier: @unchecked Sendable {
    typealias Callback = @Sendable (UInt64) -> Void

    private struct Subscriber {
        let id: UInt64
        let callback: Callback
    }

    private let lock = ConditionLock()
    private var subscribers: [Subscriber] = []
    private var pending: [UInt64] = []
    private var pendingStart = 0
    private var deliverer: ThreadIdentity?
    /// The subscriber whose callback is running now, if any.
    private var inFlight: UInt64?
    private var nextID: UInt64 = 0
    private var closed = false

    var hasSubscribers: Bool { lock.withLock { !subscribers.isEmpty } }

    func subscribe(_ callback: @escaping Callback) -> UInt64? {
        guard case .subscribed(let id) = subscribe(callback, limit: .max) else { return nil }
        return id
    }

    enum Subscribed { case subscribed(UInt64), closed, full(count: Int) }

    /// Adds a subscriber unless `limit` are subscribed already (fk_limit's FK_LIMIT_SUBSCRIBERS).
    func subscribe(_ callback: @escaping Callback, limit: Int) -> Subscribed {
        lock.withLock {
            guard !closed else { return .closed }
            guard subscribers.count < limit else { return .full(count: subscribers.count) }
            nextID += 1
            subscribers.append(Subscriber(id: nextID, callback: callback))
            return .subscribed(nextID)
        }
    }

    /// Removes a subscriber. When this returns, its callback is not running (unless
    /// this is called from inside that very callback) and will not be called again.
    func unsubscribe(_ id: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let index = subscribers.firstIndex(where: { $0.id == id }) else { return false }
        subscribers.remove(at: index)
        waitForCallback { $0 == id }
        return true
    }

    /// Drops every subscriber and waits out a running callback. Nothing is delivered afterwards.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        closed = true
        subscribers.removeAll()
        pending.removeAll()
        pendingStart = 0
        waitForCallback { _ in true }
    }

    /// Called with the lock held.
    private func waitForCallback(_ matches: (UInt64) -> Bool) {
        while let running = inFlight, matches(running), deliverer != .current {
            lock.wait()
        }
    }

    /// Queues a change. Cheap; the caller delivers with `deliver()` once it holds no lock.
    @usableFromInline
    func enqueue(_ version: UInt64) {
        lock.withLock {
            guard !closed, !subscribers.isEmpty else { return }
            pending.append(version)
        }
    }

    /// Delivers queued changes, unless another thread is doing so already.
    @usableFromInline
    func deliver() {
        lock.lock()
        guard deliverer == nil, pendingStart < pending.count else {
            lock.unlock()
            return
        }
        deliverer = .current
        while pendingStart < pending.count {
            let version = pending[pendingStart]
            pendingStart += 1
            var index = 0
            while index < subscribers.count {
                let subscriber = subscribers[index]
                inFlight = subscriber.id
                lock.unlock()
                subscriber.callback(version)
                lock.lock()
                inFlight = nil
                lock.broadcast()
                // The list may have changed during the callback: continue after this subscriber.
                if let position = subscribers.firstIndex(where: { $0.id == subscriber.id }) {
                    index = position + 1
                } else {
                    index = subscribers.firstIndex(where: { $0.id > subscriber.id }) ?? subscribers.count
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        deliverer = nil
        lock.unlock()
    }
}
