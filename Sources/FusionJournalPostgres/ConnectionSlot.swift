import Dispatch
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// One connection to the database, made again when it was lost (the server restarted,
/// or stopped for a while): every query through it runs in the order it was asked for.
final class ConnectionSlot: Sendable {
    private let address: PostgresAddress
    let eventLoop: any EventLoop
    private let logger: Logger
    private let number: Int
    /// Called with each new connection, before any query runs on it (the lock connection
    /// sets its idle deadline and listens for hand-over requests).
    private let opened: @Sendable (PostgresConnection) -> EventLoopFuture<Void>

    private enum Current {
        case none, connecting(EventLoopFuture<PostgresConnection>), connected(PostgresConnection)
    }
    private let current = NIOLockedValueBox(Current.none)
    /// Where the answers to this connection's journal writes are passed on, in the order
    /// they came, off the event loop: a caller may block there waiting for another query.
    let answers: DispatchQueue

    init(
        address: PostgresAddress, eventLoop: any EventLoop, logger: Logger, number: Int,
        opened: @escaping @Sendable (PostgresConnection) -> EventLoopFuture<Void> = { $0.eventLoop.makeSucceededVoidFuture() }
    ) {
        self.address = address
        self.eventLoop = eventLoop
        self.logger = logger
        self.number = number
        self.opened = opened
        answers = DispatchQueue(label: "fusion.journal.postgres.answers.\(number)")
    }

    /// The connection: the open one, or a new one.
    func connection() -> EventLoopFuture<PostgresConnection> {
        current.withLockedValue { current in
            switch current {
            case .connected(let connection) where !connection.isClosed:
                return eventLoop.makeSucceededFuture(connection)
            case .connecting(let future):
                return future
            default:
                let future = PostgresConnection.connect(
                    on: eventLoop, configuration: address.configuration, id: number, logger: logger
                ).flatMap { connection in
                    self.opened(connection).map { connection }
                }
                current = .connecting(future)
                future.whenComplete { result in
                    self.current.withLockedValue { current in
                        guard case .connecting(let made) = current, made === future else { return }
                        switch result {
                        case .success(let connection):
                            current = .connected(connection)
                        case .failure: current = .none
                        }
                    }
                }
                return future
            }
        }
    }

    /// Runs a query on the connection.
    func query(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
        connection().flatMap { $0.query(query, logger: self.logger) }
    }

    /// The statements prepared on the open connection, by their SQL: parsed and planned
    /// once per connection rather than at every call (the journal's append runs once per
    /// input). A statement whose preparation failed is dropped, to be prepared again.
    private let prepared = NIOLockedValueBox<(connection: PostgresConnection?, statements: [String: EventLoopFuture<PreparedQuery>])>(
        (nil, [:]))

    /// How long a prepared statement may go unanswered before its connection is given up.
    static let deadline = TimeAmount.seconds(10)

    /// Runs a prepared statement on the connection, preparing it first on a new one; its
    /// rows. In order with the other queries: calls wait on the preparation in the order
    /// they came.
    ///
    /// One the database never answers (a connection cut without a word, which TCP reports
    /// only after many minutes) would hold every later statement here (the journal's
    /// appends): past `deadline` the connection is dropped, which fails the statement as
    /// not answered in time, and the next one connects again.
    func execute(prepared sql: String, _ binds: [PostgresData]) -> EventLoopFuture<[PostgresRow]> {
        // Called off the event loop (a session appending its record), the deadline's timer
        // and the statement go over in one hop: each call from another thread wakes the loop.
        guard eventLoop.inEventLoop else { return eventLoop.flatSubmit { self.execute(prepared: sql, binds) } }
        let late = NIOLockedValueBox(false)
        let deadline = eventLoop.scheduleTask(in: Self.deadline) {
            late.withLockedValue { $0 = true }
            self.close()
        }
        return run(prepared: sql, binds).always { _ in deadline.cancel() }.flatMapErrorThrowing { error in
            throw late.withLockedValue { $0 } ? TimedOut() : error
        }
    }

    private func run(prepared sql: String, _ binds: [PostgresData]) -> EventLoopFuture<[PostgresRow]> {
        // No connection: the statement never went out, so it did nothing (`NotSent`).
        connection().flatMapErrorThrowing { throw NotSent(cause: $0) }.flatMap { connection in
            let (statement, new) = self.prepared.withLockedValue { cache -> (EventLoopFuture<PreparedQuery>, Bool) in
                if cache.connection !== connection { cache = (connection, [:]) }
                if let made = cache.statements[sql] { return (made, false) }
                let made = connection.prepare(query: sql)
                cache.statements[sql] = made
                return (made, true)
            }
            if new {
                statement.whenFailure { _ in
                    self.prepared.withLockedValue { cache in
                        if cache.connection === connection, cache.statements[sql] === statement { cache.statements[sql] = nil }
                    }
                }
            }
            return statement.flatMap { $0.execute(binds) }
        }
    }

    /// Closes the connection, if open, without waiting (it may be called on an event loop).
    func close() {
        prepared.withLockedValue { $0 = (nil, [:]) }
        let open = current.withLockedValue { current -> PostgresConnection? in
            defer { current = .none }
            if case .connected(let connection) = current { return connection }
            return nil
        }
        guard let open else { return }
        // Held until it is closed: a connection may not be freed while it closes.
        let closing: EventLoopFuture<Void> = open.close()
        closing.whenComplete { _ in withExtendedLifetime(open) {} }
    }
}

extension EventLoopFuture where Value: Sendable {
    /// Blocks the calling thread (never one of the journal's event loop) for the result.
    func await(timeout: DispatchTimeInterval = .seconds(10)) throws -> Value {
        let result = NIOLockedValueBox<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        whenComplete { outcome in
            result.withLockedValue { $0 = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success else { throw TimedOut() }
        return try result.withLockedValue { $0! }.get()
    }
}

/// A statement that never reached the database (no connection could be made): it did
/// nothing, unlike one that went out and got no answer.
struct NotSent: Error, CustomStringConvertible {
    let cause: any Error
    var description: String { PostgresSessionStore.describe(cause) }
}

/// The database did not answer in time.
struct TimedOut: Error, CustomStringConvertible {
    var description: String { "the database did not answer in time" }
}
