import FusionHost
import HummingbirdWebSocket
import NIOWebSocket
import Synchronization

/// One WebSocket of a session. Everything it sends goes through one queue drained by
/// one writer, so messages leave in the order they were queued: the changes an input
/// made are queued (as a flush) before the `ok` for it.
///
/// Changes are not queued as messages: a change marks its instance dirty and queues
/// one flush, which reads a patch from the version this connection was last sent up
/// to the current one (`fk_state_patch`). Many changes between two flushes cost one
/// patch, and a connection that fell behind the versions the library keeps gets the
/// whole state, never a wrong patch.
final class BridgeConnection: Sendable {
    enum Outgoing: Sendable {
        case text(String)
        case flush
        case close(WebSocketErrorCode, String)
        /// An unsolicited pong (RFC 6455, 5.5.3): a heartbeat a proxy sees, which asks
        /// the page for nothing.
        case heartbeat
    }

    /// What may wait in the queue for a page that does not read: past either, the
    /// connection is dropped at once (not through the queue, which is not moving).
    static let maxQueuedMessages = 4096
    static let maxQueuedBytes = 8 << 20

    let number: Int
    let outgoing: AsyncStream<Outgoing>
    private let continuation: AsyncStream<Outgoing>.Continuation
    /// Fires once when the connection must be dropped without a close handshake.
    let aborted: AsyncStream<Void>
    private let abortContinuation: AsyncStream<Void>.Continuation

    private struct Pending {
        /// Instances changed since the last flush, in the order they changed.
        var dirty: [String] = []
        /// Instances whose whole state the next flush sends (new here, or resync).
        var whole: Set<String> = []
        /// The version of each instance this connection was last sent.
        var sent: [String: UInt64] = [:]
        var flushQueued = false
        var queuedMessages = 0
        var queuedBytes = 0
        var closing = false
    }
    private let pending = Mutex(Pending())

    init(number: Int) {
        self.number = number
        (outgoing, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        (aborted, abortContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Queues a message.
    func send(_ text: String) {
        enqueue(.text(text), bytes: text.utf8.count)
    }

    /// Queues a heartbeat (`Outgoing.heartbeat`).
    func heartbeat() {
        enqueue(.heartbeat, bytes: 0)
    }

    /// Queues a close with a code and a reason; nothing queued after it is written.
    func close(_ code: WebSocketErrorCode, reason: String) {
        let first = pending.withLock { state -> Bool in
            defer { state.closing = true }
            return !state.closing
        }
        if first { continuation.yield(.close(code, reason)) }
    }

    /// Ends the queue once the connection is gone.
    func finish() {
        continuation.finish()
        abortContinuation.finish()
    }

    /// Notes that an instance changed; queues a flush unless one is queued already.
    /// Called on whatever thread the library reports the change on: it only takes a lock.
    func markDirty(_ instance: String) {
        let queueFlush = pending.withLock { state -> Bool in
            if !state.dirty.contains(instance) { state.dirty.append(instance) }
            guard !state.flushQueued else { return false }
            state.flushQueued = true
            return true
        }
        if queueFlush { enqueue(.flush, bytes: 0) }
    }

    /// Makes the next flush send an instance's whole state (a new instance here, a
    /// rejoin, a resync), and queues that flush.
    func resend(_ instance: String) {
        pending.withLock { _ = $0.whole.insert(instance) }
        markDirty(instance)
    }

    /// Forgets an instance that is gone, so nothing is kept for it.
    func forget(_ instance: String) {
        pending.withLock { state in
            state.sent[instance] = nil
            state.whole.remove(instance)
            state.dirty.removeAll { $0 == instance }
        }
    }

    private func enqueue(_ item: Outgoing, bytes: Int) {
        enum Verdict { case queue, drop, overflow }
        let verdict = pending.withLock { state -> Verdict in
            if state.closing { return .drop }  // nothing after a close is written
            guard state.queuedMessages < Self.maxQueuedMessages, state.queuedBytes + bytes <= Self.maxQueuedBytes else {
                state.closing = true
                return .overflow
            }
            state.queuedMessages += 1
            state.queuedBytes += bytes
            return .queue
        }
        switch verdict {
        case .queue: continuation.yield(item)
        case .drop: break
        case .overflow: abortContinuation.yield()
        }
    }

    /// Writes what is queued until the queue ends or a close is written. `holds` is asked
    /// before each message: once the bridge may have lost the session to another (its
    /// lease ran out while it was frozen), nothing of its copy goes out, not even what was
    /// queued before; the close that follows still does.
    func runWriter(outbound: WebSocketOutboundWriter, session: BridgeSession, holds: @Sendable () -> Bool) async {
        do {
            for await item in outgoing {
                switch item {
                case .text(let text):
                    pending.withLock {
                        $0.queuedMessages -= 1; $0.queuedBytes -= text.utf8.count
                    }
                    guard holds() else { continue }
                    try await outbound.write(.text(text))
                case .flush:
                    pending.withLock { $0.queuedMessages -= 1 }
                    guard holds() else { continue }
                    for message in flush(session) { try await outbound.write(.text(message)) }
                case .close(let code, let reason):
                    try await outbound.close(code, reason: reason)
                    return
                case .heartbeat:
                    pending.withLock { $0.queuedMessages -= 1 }
                    try await outbound.write(.pong)
                }
            }
        } catch {
            // The socket is gone (or the task was cancelled); the reader sees it end.
        }
    }

    /// The state and patch messages for every dirty instance. Versions sent are read
    /// and recorded under the same lock as `whole`, so a resync arriving mid-flush is
    /// never lost: it is either taken by this flush or left for the next.
    private func flush(_ session: BridgeSession) -> [String] {
        let (dirty, whole) = pending.withLock { state -> ([String], Set<String>) in
            state.flushQueued = false
            defer { state.dirty.removeAll(keepingCapacity: true); state.whole.removeAll() }
            return (state.dirty, state.whole)
        }
        var messages: [String] = []
        for id in dirty {
            guard let instance = session.instance(id) else { continue }
            let since = whole.contains(id) ? nil : pending.withLock { $0.sent[id] }
            // UInt64.max is never a kept version: it asks for the whole state.
            guard let change = try? instance.hosted.statePatch(since: since ?? .max) else { continue }
            if let since, change.version == since { continue }
            pending.withLock { $0.sent[id] = change.version }
            messages.append(ServerMessage.change(instance: id, statePatch: change.json))
        }
        return messages
    }
}
