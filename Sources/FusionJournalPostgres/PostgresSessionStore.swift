import Dispatch
import FusionHost
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

/// Sessions kept in PostgreSQL (`fusion serve --journal postgres://…`), shared by every
/// bridge pointed at the same database: any of them takes over any session
/// (docs/deploy.md). Three mechanisms keep one live copy of a session:
///
/// - **Liveness**: the bridge holding a session holds a session-level advisory lock on
///   its id, on its lock connection; the server releases it when that connection dies
///   (the bridge crashed), or has been idle for the lease (`SessionLease`: the bridge is
///   frozen, or cut off), so a dead or silent holder is known within the lease. The
///   bridge gives its sessions up first, and when its lock connection goes.
/// - **Hand-over**: a bridge asked for a session whose lock is held sends
///   `NOTIFY fusion_handover, 'id'`; the holder closes the session's sockets (code 4000),
///   lets its last records reach the database, and unlocks.
/// - **Fencing**: taking a session over increases its `epoch`, and every write checks the
///   epoch it was taken with in the same statement, under a share lock on the session's
///   row: a bridge that lost a session can never write to its journal again.
public final class PostgresSessionStore: SessionStore {
    public let address: PostgresAddress
    /// Who holds the sessions this bridge takes (the `holder` column): host and process.
    public let holder: String
    /// How long a take-over waits for a live holder to hand the session over: longer
    /// than the lease, so that a frozen holder's sessions are taken within one rejoin.
    public let handOverTimeout: Duration
    /// How long the bridge holds its sessions without hearing from the database.
    public var lease: Duration { sessionLease.duration }

    let logger: Logger
    /// Holds the advisory locks and listens for hand-over requests.
    private let lockSlot: ConnectionSlot
    /// The journals' writes and reads; a session's always go through the same one, so that
    /// its records are written in order.
    private let slots: [ConnectionSlot]
    /// The journals' appends through each of `slots`.
    private let writers: [RecordWriter]
    /// Sessions this bridge holds, with the epoch it took each one with.
    private let held = NIOLockedValueBox<[String: Int64]>([:])
    /// The sessions a take-over is under way for on this bridge. A second at once (two
    /// tabs of one session rejoining here together) waits for the first and is refused:
    /// run too, it took the advisory lock a second time on the same connection (locks
    /// count there), so one unlock no longer let it go and no bridge could take the
    /// session again until its copy here expired, its journal with it; and its new epoch
    /// fenced the first copy off (outside probe).
    private let takingOver = NIOLockedValueBox<Set<String>>([])
    private let handOverHandler = NIOLockedValueBox<(@Sendable (String) -> Void)?>(nil)
    private let sessionLease: SessionLease
    private let heartbeat = NIOLockedValueBox<RepeatedTask?>(nil)

    /// Connects, makes the tables if there are none, and refuses a database whose tables
    /// a newer FusionKit made. Two connections for the journals: on a small machine more
    /// of them wake more threads than they save waiting (Benchmarks/cluster measures it
    /// with pgbench over as many).
    public init(
        address: PostgresAddress, holder: String, connections: Int = 2, lease: Duration = .seconds(4), handOverTimeout: Duration? = nil
    ) throws(JournalError) {
        self.address = address
        self.holder = holder
        self.handOverTimeout = handOverTimeout ?? lease + .seconds(1)
        var made = Logger(label: "fusion.journal.postgres")
        made.logLevel = .error
        let logger = made
        self.logger = logger
        // The process's shared event loops (the web server's too): no threads of its own
        // to wake on a machine whose cores the server needs.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        slots = (0..<max(1, connections)).map { ConnectionSlot(address: address, eventLoop: loop, logger: logger, number: $0 + 1) }
        writers = slots.map(RecordWriter.init)
        let heldSessions = held
        let handler = handOverHandler
        let sessionLease = SessionLease(duration: lease, held: held, logger: logger)
        self.sessionLease = sessionLease
        lockSlot = ConnectionSlot(address: address, eventLoop: loop, logger: logger, number: 0) { connection in
            // A new lock connection holds no lock: when an earlier one went, every session
            // it locked was given up with it (`SessionLease.opened`), and each is taken
            // again, with a new epoch, only when a client asks for it.
            sessionLease.opened(connection)
            let deadline = PostgresQuery(unsafeSQL: "SET idle_session_timeout = \(lease.milliseconds)")
            return connection.query(deadline, logger: logger).flatMap { _ in
                Self.listen(on: connection, logger: logger, held: heldSessions, handler: handler)
            }
        }
        do {
            try makeTables()
            try renewLease()
        } catch let error as JournalError {
            shutDown()
            throw error
        } catch {
            shutDown()
            throw failure("cannot use the database: \(Self.describe(error))")
        }
    }

    deinit { shutDown() }

    /// Sends the lock connection a heartbeat every quarter of the lease, and gives every
    /// session up once none has been answered for too long (a frozen process wakes here).
    private func startHeartbeat() {
        let interval = TimeAmount.milliseconds(sessionLease.heartbeat.milliseconds)
        let task = lockSlot.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in
            guard let self else { return }
            if !sessionLease.isValid && sessionLease.holdsAny {
                lockSlot.close()
                sessionLease.lose("no heartbeat answered for \(sessionLease.duration - sessionLease.margin)")
            }
            let sent = ContinuousClock.now
            let lease = sessionLease
            lockSlot.connection().flatMap { connection in connection.query("SELECT 1", logger: self.logger).map { _ in connection } }
                .whenSuccess { connection in lease.renewed(at: sent, on: connection) }
        }
        heartbeat.withLockedValue { $0 = task }
    }

    /// Renews the lease now, waiting for the database: before a session is taken, so that
    /// a bridge whose lease lapsed (or that lost its lock connection) takes it on a fresh one.
    private func renewLease() throws(JournalError) {
        if sessionLease.isValid { return }
        try blocking("cannot reach the database") {
            let sent = ContinuousClock.now
            let connection = try lockSlot.connection().await(timeout: .seconds(2))
            _ = try connection.query("SELECT 1", logger: logger).await(timeout: .seconds(2))
            sessionLease.renewed(at: sent, on: connection)
        }
        if heartbeat.withLockedValue({ $0 == nil }) { startHeartbeat() }
    }

    public var description: String { address.description }
    public var isShared: Bool { true }

    // MARK: SessionStore

    public func start(session id: String, owner: String?) throws(JournalError) -> any SessionJournals {
        try renewLease()
        try blocking("cannot start session \(id.prefix(8))…") {
            let slot = slot(for: id)
            _ = try slot.query("INSERT INTO fusion_sessions (id, epoch, holder, owner) VALUES (\(id), 1, \(holder), \(owner))").await()
            guard try tryLock(id) else { throw failure("session \(id.prefix(8))… is locked by another bridge") }
        }
        held.withLockedValue { $0[id] = 1 }
        return PostgresSessionJournals(
            store: self, sessionID: id, owner: owner, epoch: 1, slot: slot(for: id), writer: writer(for: id), mayHoldPoison: false)
    }

    public func takeOver(session id: String, owner: String?) throws(JournalError) -> (any SessionJournals)? {
        let slot = slot(for: id)
        // Another user's session is not there, as far as this user can tell: its holder is
        // not even asked to hand it over.
        let found = try blocking("cannot look for session \(id.prefix(8))…") { () throws -> String?? in
            try slot.query("SELECT owner FROM fusion_sessions WHERE id = \(id)").await().rows.first?.decode(String?.self)
        }
        guard let found, found == owner else { return nil }
        try renewLease()
        try claimTakeOver(id)
        defer { _ = takingOver.withLockedValue { $0.remove(id) } }
        let locked = try waitForLock(id)
        var taken: (epoch: Int64, released: Bool)?
        // A lock got here for a take-over that failed, or found the session ended, goes
        // again: kept, it would stop every bridge from taking the session (this one would
        // not even hand it over: it holds no copy).
        defer { if locked && taken == nil { unlockAdvisory(id) } }
        // The new epoch fences the last holder off; whether it let the session go cleanly
        // (else it may have died of one of the session's inputs: the poison check).
        taken = try blocking("cannot take session \(id.prefix(8))… over") { () throws -> (Int64, Bool)? in
            let result = try slot.query(
                """
                UPDATE fusion_sessions AS s SET epoch = s.epoch + 1, holder = \(holder), taken = now(), released = false
                FROM (SELECT released FROM fusion_sessions WHERE id = \(id) FOR UPDATE) AS before
                WHERE s.id = \(id) RETURNING s.epoch, before.released
                """
            ).await()
            return try result.rows.first?.decode((Int64, Bool).self)
        }
        guard let (epoch, released) = taken else { return nil }  // ended meanwhile
        held.withLockedValue { $0[id] = epoch }
        logger.info("took session \(id.prefix(8))… over (epoch \(epoch))")
        return PostgresSessionJournals(
            store: self, sessionID: id, owner: owner, epoch: epoch, slot: slot, writer: writer(for: id), mayHoldPoison: !released)
    }

    public func sessionsToResume() -> [String] { [] }

    public func onHandOverRequest(_ handler: @escaping @Sendable (String) -> Void) {
        handOverHandler.withLockedValue { $0 = handler }
    }

    public func stillHoldsSessions() -> Bool {
        if sessionLease.isValid { return true }
        // False for as long as the lease is void, also once the sessions were given up
        // (their sockets are being closed meanwhile: nothing of their copies goes out).
        if sessionLease.holdsAny {
            lockSlot.close()
            sessionLease.lose("the lease of \(sessionLease.duration) ran out (the bridge was stopped, or did not hear from the database)")
        }
        return false
    }

    public func onSessionsLost(_ handler: @escaping @Sendable ([String]) -> Void) { sessionLease.onLost(handler) }

    public func isReady() -> Bool {
        let probes = [lockSlot, slots[0]].map { $0.query("SELECT 1") }
        return probes.allSatisfy { (try? $0.await(timeout: .seconds(1))) != nil }
    }

    public func close() { shutDown() }

    // MARK: Locks

    /// Marks a take-over of `id` as under way here. One already under way is waited for
    /// (it may wait a hand-over's time), then this one is refused: the connection asks
    /// again, and finds the copy the first made (or takes the session over itself, when
    /// the first failed).
    private func claimTakeOver(_ id: String) throws(JournalError) {
        if takingOver.withLockedValue({ $0.insert(id).inserted }) { return }
        let start = ContinuousClock.now
        while takingOver.withLockedValue({ $0.contains(id) }) && ContinuousClock.now - start < handOverTimeout + .seconds(10) {
            usleep(10_000)
        }
        throw failure("session \(id.prefix(8))… was being taken over here for another connection at the same time; connect again")
    }

    /// Locks `id` for this bridge: at once when its holder is gone; else asks the holder to
    /// hand it over and waits, up to `handOverTimeout`. False when this bridge holds the
    /// lock already: a page rejoined while the copy it left was being let go here.
    private func waitForLock(_ id: String) throws(JournalError) -> Bool {
        if held.withLockedValue({ $0[id] != nil }) { return false }
        let start = ContinuousClock.now
        var asked: ContinuousClock.Instant?
        while true {
            if try blocking("cannot lock session \(id.prefix(8))…", { try tryLock(id) }) { return true }
            let now = ContinuousClock.now
            if now - start > handOverTimeout {
                throw failure("session \(id.prefix(8))… is held by a live bridge that did not hand it over within \(handOverTimeout)")
            }
            // Asked again every second: a request sent while the holder was reconnecting is lost.
            if asked.map({ now - $0 > .seconds(1) }) ?? true {
                _ = try? slot(for: id).query("SELECT pg_notify(\(JournalSchema.handOverChannel), \(id))").await()
                asked = now
            }
            usleep(20_000)
        }
    }

    private func tryLock(_ id: String) throws -> Bool {
        let result = try lockSlot.query("SELECT pg_try_advisory_lock(hashtextextended(\(id), 0))").await()
        return try result.rows.first?.decode(Bool.self) ?? false
    }

    /// Lets go of the copy of a session taken with `epoch`: this bridge no longer writes to
    /// it. Nothing when this bridge has taken the session again since (a page rejoined it
    /// here while this copy was finishing): the lock and `held` are the new copy's.
    func unlock(_ id: String, epoch: Int64) {
        let mine = held.withLockedValue { held -> Bool in
            guard held[id] == epoch else { return false }
            held[id] = nil
            return true
        }
        if mine { unlockAdvisory(id) }
    }

    private func unlockAdvisory(_ id: String) {
        _ = lockSlot.query("SELECT pg_advisory_unlock(hashtextextended(\(id), 0))")
    }

    private static func listen(
        on connection: PostgresConnection, logger: Logger, held: NIOLockedValueBox<[String: Int64]>,
        handler: NIOLockedValueBox<(@Sendable (String) -> Void)?>
    ) -> EventLoopFuture<Void> {
        connection.addListener(channel: JournalSchema.handOverChannel) { _, notification in
            let id = notification.payload
            guard held.withLockedValue({ $0[id] != nil }), let hand = handler.withLockedValue({ $0 }) else { return }
            // Off the event loop: handing over waits for the session's last records.
            DispatchQueue.global().async { hand(id) }
        }
        return connection.query(PostgresQuery(unsafeSQL: "LISTEN \(JournalSchema.handOverChannel)"), logger: logger).map { _ in }
    }

    // MARK: Tables

    private func makeTables() throws {
        let slot = slots[0]
        _ = try slot.query("BEGIN").await()
        do {
            _ = try slot.query("SELECT pg_advisory_xact_lock(\(JournalSchema.creationLock))").await()
            // The version first: a newer one's tables are left as they are.
            _ = try slot.query(PostgresQuery(unsafeSQL: JournalSchema.statements[0])).await()
            let found = try slot.query("SELECT max(version) FROM fusion_schema").await().rows.first?.decode(Int?.self) ?? nil
            if let found, found > JournalSchema.version {
                throw failure(
                    "its FusionKit tables are version \(found), made by a newer FusionKit; this one knows version \(JournalSchema.version): upgrade fusion (or use another database)"
                )
            }
            for statement in JournalSchema.statements.dropFirst() { _ = try slot.query(PostgresQuery(unsafeSQL: statement)).await() }
            _ = try slot.query("COMMIT").await()
        } catch {
            _ = try? slot.query("ROLLBACK").await()
            throw error
        }
    }

    // MARK: Helpers

    func slot(for session: String) -> ConnectionSlot { slots[index(of: session)] }

    func writer(for session: String) -> RecordWriter { writers[index(of: session)] }

    /// The connection a session's queries go through: always the same one, so that they
    /// run in the order they were asked for.
    private func index(of session: String) -> Int {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in session.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return Int(hash % UInt64(slots.count))
    }

    func failure(_ reason: String, fenced: Bool = false, uncertain: Bool = false) -> JournalError {
        JournalError(path: address.description, reason, fenced: fenced, uncertain: uncertain)
    }

    /// Whether a failed statement may have been carried out all the same: it went out, and
    /// no answer came back (a timeout, a connection lost meanwhile). A refusal by the server,
    /// or a statement that never left (no connection), did nothing.
    static func mayHaveLanded(_ error: any Error) -> Bool {
        !(error is NotSent) && !isServerRefusal(error)
    }

    /// Runs database calls, their failures said as a JournalError.
    func blocking<T>(_ what: String, _ body: () throws -> T) throws(JournalError) -> T {
        do {
            return try body()
        } catch let error as JournalError {
            throw error
        } catch {
            throw failure("\(what): \(Self.describe(error))")
        }
    }

    /// Whether the server answered with an error (as opposed to a lost connection or a
    /// timeout, which every statement on the connection would meet alike).
    static func isServerRefusal(_ error: any Error) -> Bool {
        if case .server? = error as? PostgresError { return true }  // prepared statements' errors
        return (error as? PSQLError)?.serverInfo != nil
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        if case .server(let refusal) = error as? PostgresError, let message = refusal.fields[.message] { return message }
        return "\(error)"
    }

    private func shutDown() {
        sessionLease.close()
        heartbeat.withLockedValue { task in
            task?.cancel()
            task = nil
        }
        for slot in slots { slot.close() }
        lockSlot.close()
    }
}
