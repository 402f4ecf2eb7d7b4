import FusionHost
import HummingbirdWebSocket
import NIOWebSocket
import Synchronization

/// One WebSocket of a session. Everything it sends goes through one queue drained by
/// one writer at a time, so messages leave in the order they were queued: the changes an
/// input made are queued (as a flush) before the `ok` for it.
///
/// The writer is a task that runs only while something is queued, not one per connection
/// waiting on the queue: each task keeps the memory its deepest call needed (its
/// allocator's slabs) until it ends, about 3 KiB for a write, and a bridge holds thousands
/// of idle connections (docs/performance.md, "memory per idle session").
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

    /// How long a page has to answer a close before its socket is closed, so that a
    /// frozen tab cannot hold up shutdown.
    static let closeAnswerTime = Duration.seconds(1)

    let number: Int
    /// Closes the socket at once, with no close handshake: for a page that does not read,
    /// whose writes are stuck (a close through the queue would be stuck behind them).
    private let drop: @Sendable () -> Void

    /// Where the writer writes, once the connection joined its session.
    private struct Destination: Sendable {
        let outbound: WebSocketOutboundWriter
        let session: BridgeSession
        /// Asked before each message: once the bridge may have lost the session to
        /// another (its lease ran out while it was frozen), nothing of its copy goes out,
        /// not even what was queued before; the close that follows still does.
        let holds: @Sendable () -> Bool
        /// Whether the socket takes a write now without waiting, and its flushes held
        /// back while the reader writes (`apply`).
        let socket: SocketWrites
    }

    private struct Pending {
        /// Instances changed since the last flush, in the order they changed.
        var dirty: [String] = []
        /// Instances whose whole state the next flush sends (new here, or resync).
        var whole: Set<String> = []
        /// The version of each instance this connection was last sent.
        var sent: [String: UInt64] = [:]
        /// Instances whose failure this connection was told of (one `failed` each).
        var failureSent: Set<String> = []
        var flushQueued = false
        var queue: [Outgoing] = []
        var queuedMessages = 0
        var queuedBytes = 0
        var closing = false
        var destination: Destination?
        /// A writer is running (or being started); the next message queued starts one otherwise.
        var writerRunning = false
        /// Which writer that is: the handle of one that ended is not kept.
        var writerNumber = 0
        /// The running writer, for `finish` to stop it.
        var writer: Task<Void, Never>?
        /// The socket is gone, a close went out, or the connection ended: nothing more is written.
        var ended = false
        /// `finish` was called: the connection is over.
        var finished = false
        /// Messages written (or being written) so far, and that count when the heartbeat
        /// last looked: unchanged since, the socket has been quiet (`heartbeatIfQuiet`).
        var written = 0
        var writtenWhenChecked = 0

        /// Marks a writer running when one is needed and none is: its destination and
        /// number. None for what the reader queues while it applies a message
        /// (`byReader`): it writes that itself afterwards.
        mutating func startingWriter(byReader: Bool = false) -> (Destination, Int)? {
            guard !byReader, !writerRunning, !ended, !queue.isEmpty, let destination else { return nil }
            writerRunning = true
            writerNumber += 1
            return (destination, writerNumber)
        }
    }
    private let pending = Mutex(Pending())

    /// The connection whose reader is applying a message in the current task (`apply`).
    @TaskLocal private static var applyingOn: ObjectIdentifier?

    /// Whether the current task is this connection's reader applying a message.
    private var queuedByReader: Bool { Self.applyingOn == ObjectIdentifier(self) }

    init(number: Int, drop: @escaping @Sendable () -> Void) {
        self.number = number
        self.drop = drop
    }

    /// Queues a message.
    func send(_ text: String) {
        enqueue(.text(text), bytes: text.utf8.count)
    }

    /// Queues a heartbeat (`Outgoing.heartbeat`) unless something was written since the
    /// last time this was asked: the heartbeat's timer asks every half period, so a socket
    /// carries something at least once a period, and one whose page is busy carries no
    /// heartbeat at all.
    func heartbeatIfQuiet() {
        let quiet = pending.withLock { state -> Bool in
            defer { state.writtenWhenChecked = state.written }
            return state.written == state.writtenWhenChecked
        }
        if quiet { enqueue(.heartbeat, bytes: 0) }
    }

    /// Queues a close with a code and a reason; nothing queued after it is written.
    func close(_ code: WebSocketErrorCode, reason: String) {
        let byReader = queuedByReader
        let writer = pending.withLock { state -> (Destination, Int)? in
            guard !state.closing else { return nil }
            state.closing = true
            state.queue.append(.close(code, reason))
            return state.startingWriter(byReader: byReader)
        }
        if let writer { startWriter(writer) }
    }

    /// Starts writing what is queued, and what is queued later, to `outbound`.
    func startWriting(
        to outbound: WebSocketOutboundWriter, session: BridgeSession, holds: @escaping @Sendable () -> Bool,
        socket: SocketWrites
    ) {
        let writer = pending.withLock { state -> (Destination, Int)? in
            state.destination = Destination(outbound: outbound, session: session, holds: holds, socket: socket)
            return state.startingWriter()
        }
        if let writer { startWriter(writer) }
    }

    /// Runs `body`, the reader applying a message. What the reader queues meanwhile (the
    /// message's changes, its `ok`) is written by the reader itself afterwards, not by a
    /// writer task started for it: a hand-off between threads less per input. What other
    /// threads queue meanwhile (another tab's changes, a close when the bridge gives the
    /// session up) starts a writer as always, so it never waits for a slow message. What
    /// the reader writes leaves in one system call (`SocketWrites`).
    func apply(_ body: () async -> Void) async {
        await Self.$applyingOn.withValue(ObjectIdentifier(self)) { await body() }
        let writer = pending.withLock { state -> (Destination, Int)? in state.startingWriter() }
        if let (destination, number) = writer {
            let held = destination.socket.hold()
            await write(to: destination, number: number, inReader: true)
            if held { destination.socket.release() }
        }
    }

    /// Ends the connection's writing once its socket is done: a writer stuck on a peer that
    /// does not read, or waiting for the peer's answer to a close, stops; returns when it did.
    func finish() async {
        let writer = pending.withLock { state -> Task<Void, Never>? in
            state.ended = true
            state.finished = true
            state.queue = []
            return state.writer
        }
        writer?.cancel()
        await writer?.value
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
            state.failureSent.remove(instance)
            state.whole.remove(instance)
            state.dirty.removeAll { $0 == instance }
        }
    }

    private func enqueue(_ item: Outgoing, bytes: Int) {
        enum Verdict { case queue((Destination, Int)?), drop, overflow }
        let byReader = queuedByReader
        let verdict = pending.withLock { state -> Verdict in
            if state.closing || state.ended { return .drop }  // nothing after a close is written
            guard state.queuedMessages < Self.maxQueuedMessages, state.queuedBytes + bytes <= Self.maxQueuedBytes else {
                state.closing = true
                return .overflow
            }
            state.queuedMessages += 1
            state.queuedBytes += bytes
            state.queue.append(item)
            return .queue(state.startingWriter(byReader: byReader))
        }
        switch verdict {
        case .queue(let writer): if let writer { startWriter(writer) }
        case .drop: break
        case .overflow: drop()
        }
    }

    private func startWriter(_ writer: (destination: Destination, number: Int)) {
        let task = Task.detached { await self.write(to: writer.destination, number: writer.number, inReader: false) }
        let ended = pending.withLock { state -> Bool in
            // It may have ended already, and another started: only a running one is kept.
            if state.writerRunning, state.writerNumber == writer.number { state.writer = task }
            return state.ended
        }
        if ended { task.cancel() }
    }

    /// Writes the queue until it is empty (the writer then ends), a close is written (then
    /// waits `closeAnswerTime` for the page's answer before closing the socket, unless
    /// cancelled by `finish`; in a task of its own when `inReader`, since the reader must
    /// go on reading to see the answer), or the socket fails. The reader (`inReader`)
    /// writes only while the socket takes writes without waiting; then it hands the rest
    /// to a writer task and goes back to reading, so that a page that does not read is
    /// still dropped when its queue overflows.
    private func write(to destination: Destination, number: Int, inReader: Bool) async {
        let outbound = destination.outbound
        while let batch = takeBatch(writer: number) {
            for (position, item) in batch.enumerated() {
                if inReader, !destination.socket.isWritable {
                    return handOff(batch[position...], writer: number)
                }
                do {
                    switch item {
                    case .text(let text):
                        pending.withLock {
                            $0.queuedMessages -= 1; $0.queuedBytes -= text.utf8.count; $0.written += 1
                        }
                        guard destination.holds() else { continue }
                        try await outbound.write(.text(text))
                    case .flush:
                        let messages = destination.holds() ? flush(destination.session) : []
                        pending.withLock {
                            $0.queuedMessages -= 1; $0.written += messages.count
                        }
                        for message in messages { try await outbound.write(.text(message)) }
                    case .close(let code, let reason):
                        try await outbound.close(code, reason: reason)
                        end()
                        if inReader {
                            awaitCloseAnswer()
                        } else {
                            await closeUnlessAnswered()
                        }
                        return
                    case .heartbeat:
                        pending.withLock {
                            $0.queuedMessages -= 1; $0.written += 1
                        }
                        try await outbound.write(.pong)
                    }
                } catch {
                    // The socket is gone (or `finish` cancelled the write); the reader sees it end.
                    end()
                    return
                }
            }
        }
    }

    /// Puts what the reader did not write back at the head of the queue, for a writer task.
    private func handOff(_ rest: ArraySlice<Outgoing>, writer number: Int) {
        let writer = pending.withLock { state -> (Destination, Int)? in
            state.queue.insert(contentsOf: rest, at: 0)
            if state.writerNumber == number { state.writerRunning = false }
            return state.startingWriter()
        }
        if let writer { startWriter(writer) }
    }

    /// Closes the socket unless the page answers the close within `closeAnswerTime`
    /// (`finish` cancels the wait when it does).
    private func closeUnlessAnswered() async {
        try? await Task.sleep(for: Self.closeAnswerTime)
        if !Task.isCancelled { drop() }
    }

    /// `closeUnlessAnswered` in a task that `finish` stops.
    private func awaitCloseAnswer() {
        let task = Task.detached { await self.closeUnlessAnswered() }
        let ended = pending.withLock { state -> Bool in
            state.writer = task
            return state.finished
        }
        if ended { task.cancel() }
    }

    /// What is queued, taken whole; nil when nothing is (the writer ends, and the next
    /// message queued starts another).
    private func takeBatch(writer number: Int) -> [Outgoing]? {
        pending.withLock { state -> [Outgoing]? in
            guard !state.ended, !state.queue.isEmpty else {
                if state.writerNumber == number {
                    state.writer = nil
                    state.writerRunning = false
                }
                return nil
            }
            defer { state.queue = [] }
            return state.queue
        }
    }

    /// Nothing more is written: the socket failed, or a close went out.
    private func end() {
        pending.withLock { state in
            state.ended = true
            state.queue = []
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
            let change: InstanceState
            do throws(FusionHostError) {
                change = try instance.hosted.statePatch(since: since ?? .max)
            } catch {
                // The input was applied but its state cannot be read (a sandboxed plugin
                // that broke its contract or ran out of its limits reading it): said once,
                // now, rather than left for the next call to find.
                if pending.withLock({ $0.failureSent.insert(id).inserted }) {
                    messages.append(ServerMessage.failed(instance: id, BridgeError(error)))
                }
                continue
            }
            if let since, change.version == since { continue }
            pending.withLock { $0.sent[id] = change.version }
            messages.append(ServerMessage.change(instance: id, statePatch: change.json))
        }
        return messages
    }
}
