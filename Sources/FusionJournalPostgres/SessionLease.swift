import Dispatch
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// How long a bridge may go on serving the sessions it holds without hearing from the
/// database (docs/deploy.md, "Liveness and fencing"). The advisory locks that say who holds
/// a session live on the bridge's lock connection, which the server ends once it has been
/// idle for `duration` (`idle_session_timeout`): a heartbeat keeps it busy every quarter of
/// that. A bridge that is frozen, or cut off from the database, sends none, so the server
/// lets its locks go after `duration` at most, and another bridge takes its sessions over.
///
/// The bridge itself stops serving them sooner, `margin` before the server could let go:
/// its own clock counts from when the last answered heartbeat was *sent*, which the server
/// received no earlier. So once another bridge can have a session, this one answers
/// nothing from its copy: it has closed the session's sockets already, or does so before
/// it answers its next message (Kleppmann's lease, with fencing by epoch behind it for
/// the writes).
final class SessionLease: Sendable {
    let duration: Duration
    /// How long before the server's deadline the bridge gives the sessions up.
    var margin: Duration { duration / 4 }
    /// How often the lock connection is sent a heartbeat.
    var heartbeat: Duration { duration / 4 }

    private struct State {
        /// The lock connection the lease stands on; answers on another do not renew it.
        var connection: ObjectIdentifier?
        /// When the last heartbeat answered on it was sent; nil: none yet.
        var renewedAt: ContinuousClock.Instant?
        /// The bridge is stopping: a closed lock connection loses nothing.
        var closing = false
    }
    private let state = NIOLockedValueBox(State())
    /// The sessions this bridge holds, with the epoch it took each one with.
    let held: NIOLockedValueBox<[String: Int64]>
    private let lost = NIOLockedValueBox<(@Sendable ([String]) -> Void)?>(nil)
    private let logger: Logger

    init(duration: Duration, held: NIOLockedValueBox<[String: Int64]>, logger: Logger) {
        self.duration = duration
        self.held = held
        self.logger = logger
    }

    /// Whether the bridge may serve its sessions now.
    var isValid: Bool {
        state.withLockedValue { state in
            guard let renewedAt = state.renewedAt else { return false }
            return ContinuousClock.now < renewedAt + duration - margin
        }
    }

    var holdsAny: Bool { held.withLockedValue { !$0.isEmpty } }

    /// A new lock connection: nothing is renewed on it yet; its end loses every session
    /// (their locks went with it).
    func opened(_ connection: PostgresConnection) {
        state.withLockedValue { state in
            state.connection = ObjectIdentifier(connection)
            state.renewedAt = nil
        }
        connection.closeFuture.whenComplete { _ in
            let current = self.state.withLockedValue { !$0.closing && $0.connection == ObjectIdentifier(connection) }
            if current { self.lose("the connection holding their locks closed") }
        }
    }

    /// A heartbeat sent at `sent` was answered on `connection`.
    func renewed(at sent: ContinuousClock.Instant, on connection: PostgresConnection) {
        state.withLockedValue { state in
            guard state.connection == ObjectIdentifier(connection) else { return }
            state.renewedAt = max(state.renewedAt ?? sent, sent)
        }
    }

    func onLost(_ handler: @escaping @Sendable ([String]) -> Void) { lost.withLockedValue { $0 = handler } }

    /// Lets go of every session at once, in this process: the bridge hears which. The lease
    /// is void until a heartbeat is answered on the next lock connection.
    func lose(_ why: String) {
        state.withLockedValue { $0.renewedAt = nil }
        let ids = held.withLockedValue { held -> [String] in
            defer { held = [:] }
            return Array(held.keys)
        }
        guard !ids.isEmpty, let handler = lost.withLockedValue({ $0 }) else { return }
        logger.warning("lost its hold on \(ids.count) sessions: \(why)")
        DispatchQueue.global().async { handler(ids) }
    }

    func close() { state.withLockedValue { $0.closing = true } }
}

extension Duration {
    /// In whole milliseconds, as PostgreSQL's settings take it.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
