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
    }

    /// Messages queued and not yet written, past which the page is taken not to be
    /// reading and the connection is closed (memory stays bounded).
    static let maxQueued = 4096

    let number: Int
    let outgoing: AsyncStream<Outgoing>
    private let continuation: AsyncStream<Outgoing>.Continuation

    private struct Pending {
        /// Instances changed since the last flush, in the order they changed.
        var dirty: [String] = []
        var flushQueued = false
        var queued = 0
        var closing = false
    }
    private let pending = Mutex(Pending())
    /// The version of each instance this connection was last sent (writer only).
    private let sent = Mutex<[String: UInt64]>([:])

    init(number: Int) {
        self.number = number
        (outgoing, continuation) = AsyncStream.makeStream(of: Outgoing.self)
    }

    /// Queues a message.
    func send(_ text: String) {
        enqueue(.text(text))
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
        if queueFlush { enqueue(.flush) }
    }

    /// Forgets what this connection was sent of an instance, so the next flush sends
    /// its whole state, and queues that flush.
    func resend(_ instance: String) {
        _ = sent.withLock { $0.removeValue(forKey: instance) }
        markDirty(instance)
    }

    private func enqueue(_ item: Outgoing) {
        enum Verdict { case queue, drop, overflow }
        let verdict = pending.withLock { state -> Verdict in
            if state.closing { return .drop }  // nothing after a close is written
            guard state.queued < Self.maxQueued else { return .overflow }
            state.queued += 1
            return .queue
        }
        switch verdict {
        case .queue: continuation.yield(item)
        case .drop: break
        case .overflow: close(.policyViolation, reason: "the page is not reading its messages")
        }
    }

    /// Writes what is queued until the queue ends or a close is written.
    func runWriter(outbound: WebSocketOutboundWriter, session: BridgeSession) async {
        do {
            for await item in outgoing {
                pending.withLock { $0.queued -= 1 }
                switch item {
                case .text(let text):
                    try await outbound.write(.text(text))
                case .flush:
                    for message in flush(session) { try await outbound.write(.text(message)) }
                case .close(let code, let reason):
                    try await outbound.close(code, reason: reason)
                    return
                }
            }
        } catch {
            // The socket is gone; the reading side sees it end and detaches.
        }
    }

    /// The state and patch messages for every dirty instance.
    private func flush(_ session: BridgeSession) -> [String] {
        let dirty = pending.withLock { state -> [String] in
            state.flushQueued = false
            defer { state.dirty.removeAll(keepingCapacity: true) }
            return state.dirty
        }
        var messages: [String] = []
        for id in dirty {
            guard let instance = session.instance(id) else {
                _ = sent.withLock { $0.removeValue(forKey: id) }
                continue
            }
            let since = sent.withLock { $0[id] }
            // UInt64.max is never a kept version: it asks for the whole state.
            guard let change = try? instance.hosted.statePatch(since: since ?? .max) else { continue }
            if let since, change.version == since { continue }
            sent.withLock { $0[id] = change.version }
            messages.append(ServerMessage.change(instance: id, statePatch: change.json))
        }
        return messages
    }
}
