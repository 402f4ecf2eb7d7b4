import Dispatch
import FusionHost
import Logging
import Synchronization

/// Every session of the bridge by id: joins, rejoins, the timeout after a session's
/// last connection, the limit on sessions, and shutdown.
final class SessionRegistry: Sendable {
    let libraries: LibrarySet
    let configuration: BridgeConfiguration

    private struct State {
        var sessions: [String: BridgeSession] = [:]
        /// New sessions being started, by owner: counted against `maxSessionsPerUser`.
        var starting: [String: Int] = [:]
        var nextConnection = 1
        /// Connections made and not yet ended (`connectionEnded`): shutdown waits for them.
        var openConnections = 0
        var shutDown = false
    }
    private let state = Mutex(State())
    private let manifest = Mutex<String?>(nil)
    /// Each signed-in user's messages, all connections together (`maxMessagesPerUser`).
    private let userRates = Mutex<[String: RateLimiter]>([:])

    /// The journals' shared syncs (group commit); nil without journal files or with `each`.
    let committer: JournalCommitter?
    /// Where the sessions' journals are kept; nil: no journals.
    let store: (any SessionStore)?
    let logger = Logger(label: "fusion.serve")
    let metrics = BridgeMetrics()

    init(libraries: LibrarySet, configuration: BridgeConfiguration) {
        self.libraries = libraries
        self.configuration = configuration
        let committer =
            configuration.sessionStore == nil && configuration.journalFolder != nil && configuration.journalSync == .group
            ? JournalCommitter(label: "fusion.serve.journal-commit") : nil
        self.committer = committer
        store = configuration.sessionStore ?? configuration.journalFolder.map { JournalFolder(folder: $0, committer: committer) }
        store?.onHandOverRequest { [weak self] id in self?.handOver(id) }
        store?.onSessionsLost { [weak self] ids in self?.sessionsLost(ids) }
    }

    var sessionCount: Int { state.withLock { $0.sessions.count } }

    /// Sets the gauges (sessions, instances, connections) to what is here now: read when
    /// `/metrics` is asked for, rather than kept up to date on every change.
    func refreshGauges() {
        let sessions = state.withLock { Array($0.sessions.values) }
        metrics.sessions.record(sessions.count)
        metrics.instances.record(sessions.reduce(0) { $0 + $1.instances.count })
        metrics.connections.record(sessions.reduce(0) { $0 + $1.connections.count })
    }

    /// The whole manifest as JSON text, parsed and checked on first use, then kept: a
    /// library's text that is not a manifest is a host failure, never passed on. With
    /// several libraries, one manifest of them all (`ServedManifest`).
    func manifestJSON() throws(FusionHostError) -> String {
        if let known = manifest.withLock({ $0 }) { return known }
        let manifests = try libraries.libraries.map { (library) throws(FusionHostError) in try library.manifest() }
        let text = manifests.count == 1 ? manifests[0].json.jsonText : ServedManifest.combining(manifests, of: libraries).jsonText
        manifest.withLock { $0 = text }
        return text
    }

    /// `drop` closes the connection's socket at once (`BridgeConnection.drop`).
    func makeConnection(drop: @escaping @Sendable (_ number: Int) -> Void) -> BridgeConnection {
        let number = state.withLock { state in
            defer { state.nextConnection += 1 }
            state.openConnections += 1
            return state.nextConnection
        }
        return BridgeConnection(number: number) { drop(number) }
    }

    /// A connection from `makeConnection` is closed and its reader done.
    func connectionEnded() {
        state.withLock { $0.openConnections -= 1 }
    }

    /// Returns once every connection has ended, or `limit` has passed.
    func connectionsEnded(within limit: Duration) async {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        // Polled: only shutdown waits here, for about a second at most.
        while state.withLock({ $0.openConnections > 0 }), clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Attaches a connection to the session it asks for, or to a new one when that
    /// one is unknown or ended. Returns the session and whether it was resumed.
    /// `greet` queues the connection's first messages (see `BridgeSession.attach`).
    /// A new session takes the id `proposed` (by a trusted proxy) when it is well formed and free.
    /// A session is only ever `owner`'s: another's id is treated as unknown.
    func join(
        _ connection: BridgeConnection, requested: Substring?, proposed: String? = nil, owner: String? = nil,
        greet: (BridgeSession, _ resumed: Bool, [BridgeInstance]) -> Void
    ) throws(BridgeError) -> BridgeSession {
        let wanted = requested.flatMap { SessionID.isWellFormed($0) ? String($0) : nil }
        if let found = try attachKnown(connection, wanted, owner, greet) { return found }
        // A session another bridge holds, or held until it died: taken over from the
        // shared store (outside the lock: it waits for the database, maybe for a hand-over).
        if let wanted, let store, store.isShared, let session = try takeOver(wanted, owner: owner, from: store) {
            let added = state.withLock { state -> Bool in
                if state.sessions[wanted] != nil { return false }  // taken over twice at once: keep the first
                state.sessions[wanted] = session
                return true
            }
            if !added {
                session.destroyAll(forgettingJournals: false)
                if let found = try attachKnown(connection, wanted, owner, greet) { return found }
            } else if session.attach(connection, greet: { greet(session, true, $0) }) {
                return session
            }
        }
        let outcome = state.withLock { state -> Result<String, BridgeError> in
            if state.shutDown { return .failure(.shuttingDown) }
            guard state.sessions.count < configuration.maxSessions else { return .failure(.sessionLimit(configuration.maxSessions)) }
            if let owner {
                let held = state.sessions.values.count { $0.owner == owner } + state.starting[owner, default: 0]
                guard held < configuration.maxSessionsPerUser else {
                    return .failure(.userLimit("sessions", configuration.maxSessionsPerUser, flag: "--max-sessions-per-user"))
                }
                state.starting[owner, default: 0] += 1
            }
            if let proposed, SessionID.isWellFormed(Substring(proposed)), state.sessions[proposed] == nil {
                return .success(proposed)
            }
            var id = SessionID.make()
            while state.sessions[id] != nil { id = SessionID.make() }
            return .success(id)
        }
        let id = try outcome.get()
        // However the start ends, the owner's reservation goes (the session counts itself once added).
        defer {
            if let owner {
                state.withLock { state in
                    state.starting[owner, default: 1] -= 1
                    if state.starting[owner] == 0 { state.starting[owner] = nil }
                }
            }
        }
        var journals: (any SessionJournals)?
        if let store {
            do throws(JournalError) { journals = try store.start(session: id, owner: owner) } catch {
                throw BridgeError(status: "BRIDGE_JOURNAL_FAILURE", message: "cannot start a session: \(error)")
            }
        }
        let session = BridgeSession(
            id: id, owner: owner, libraries: libraries, maxInstances: configuration.maxInstancesPerSession, journals: journals,
            metrics: metrics)
        _ = session.attach(connection, greet: { greet(session, false, $0) })
        state.withLock { $0.sessions[id] = session }
        return session
    }

    /// Attaches to a session this bridge holds; nil when it holds none by that id.
    private func attachKnown(
        _ connection: BridgeConnection, _ wanted: String?, _ owner: String?,
        _ greet: (BridgeSession, _ resumed: Bool, [BridgeInstance]) -> Void
    ) throws(BridgeError) -> BridgeSession? {
        let outcome = state.withLock { state -> Result<BridgeSession?, BridgeError> in
            if state.shutDown { return .failure(.shuttingDown) }
            guard let wanted, let session = state.sessions[wanted], session.owner == owner,
                session.attach(connection, greet: { greet(session, true, $0) })
            else {
                return .success(nil)
            }
            return .success(session)
        }
        return try outcome.get()
    }

    /// The session `id` taken over from a shared store, its instances replayed; nil when
    /// the store has no such session.
    private func takeOver(_ id: String, owner: String?, from store: any SessionStore) throws(BridgeError) -> BridgeSession? {
        let journals: any SessionJournals
        do throws(JournalError) {
            guard let found = try store.takeOver(session: id, owner: owner) else { return nil }
            journals = found
        } catch {
            throw BridgeError(status: "BRIDGE_JOURNAL_FAILURE", message: "cannot take the session over: \(error)")
        }
        let (session, problems) = BridgeSession.resume(
            journals: journals, libraries: libraries, maxInstances: configuration.maxInstancesPerSession,
            poisonCheck: configuration.poisonCheck, metrics: metrics)
        metrics.takeOver(released: !journals.mayHoldPoison)
        for problem in problems {
            logger.warning("\(SessionID.redacted(problem))", metadata: ["session": "\(SessionID.logTag(id))"])
        }
        scheduleExpiry(session, generation: 0)
        return session
    }

    /// A hand-over request for a session this bridge holds: its sockets are closed with
    /// `BridgeCloseCode.sessionMoved` (clients reconnect, and reach the bridge that asked),
    /// its records finish, and the store lets it go.
    func handOver(_ id: String, reason: String = "the session moved to another bridge; reconnect") {
        let session = state.withLock { state -> BridgeSession? in
            guard let session = state.sessions[id] else { return nil }
            state.sessions[id] = nil
            return session
        }
        guard let session else { return }
        metrics.handOvers.increment()
        logger.info("handing the session over to the bridge that asked", metadata: ["session": "\(SessionID.logTag(id))"])
        for connection in session.end() {
            connection.close(BridgeCloseCode.sessionMoved, reason: reason)
        }
        session.destroyAll(forgettingJournals: false)
    }

    /// The store says this bridge may have lost these sessions to another (docs/deploy.md,
    /// "Liveness and fencing"): every socket of them is closed first, at once, with
    /// `BridgeCloseCode.sessionMoved`, so that no tab reads a copy another bridge may have
    /// gone on from; then their copies are dropped. None is taken back but by a take-over
    /// with a fresh lock and epoch, when a client rejoins.
    func sessionsLost(_ ids: [String]) {
        let sessions = state.withLock { state in ids.compactMap { state.sessions.removeValue(forKey: $0) } }
        guard !sessions.isEmpty else { return }
        logger.warning("lost its hold on the session store: \(sessions.count) sessions given up; their tabs reconnect")
        for session in sessions {
            metrics.handOvers.increment()
            for connection in session.end() {
                connection.close(BridgeCloseCode.sessionMoved, reason: "this bridge lost its hold on the session; reconnect")
            }
        }
        for session in sessions { DispatchQueue.global().async { session.destroyAll(forgettingJournals: false) } }
    }

    /// Queues a heartbeat on every quiet connection of one of `slots` groups (by number)
    /// (`BridgeConfiguration.heartbeat`): one timer for the bridge, not a task per
    /// connection, and a group at a time, so that the pongs of thousands of idle sockets do
    /// not all go out at once, ahead of the inputs that arrive meanwhile.
    func heartbeat(slot: Int, of slots: Int) {
        let sessions = state.withLock { Array($0.sessions.values) }
        for session in sessions {
            for connection in session.connections where connection.number % slots == slot {
                connection.heartbeatIfQuiet()
            }
        }
    }

    /// Whether this bridge may answer a message of its sessions: not once its store's lease
    /// ran out (it was frozen, or cut off), when every session it held is given up instead.
    var holdsSessions: Bool { store?.stillHoldsSessions() ?? true }

    /// Resumes the sessions whose journals are in the journal folder (a bridge that
    /// crashed, or was stopped, with sessions open). Each waits for its tab to rejoin
    /// as after a reload, and ends after the session timeout if none does. Returns
    /// how many were resumed, and problems in words.
    func resumeJournaledSessions() -> (sessions: Int, problems: [String]) {
        guard let store else { return (0, []) }
        var problems: [String] = []
        var resumed: [BridgeSession] = []
        for id in store.sessionsToResume() where SessionID.isWellFormed(Substring(id)) {
            let journals: any SessionJournals
            do throws(JournalError) { journals = try store.start(session: id, owner: nil) } catch {
                problems.append("\(error)")
                continue
            }
            let (session, found) = BridgeSession.resume(
                journals: journals, libraries: libraries, maxInstances: configuration.maxInstancesPerSession,
                poisonCheck: configuration.poisonCheck, metrics: metrics)
            problems += found
            resumed.append(session)
        }
        state.withLock { state in
            for session in resumed { state.sessions[session.id] = session }
        }
        for session in resumed { scheduleExpiry(session, generation: 0) }
        return (resumed.count, problems)
    }

    /// Ends `session` after the session timeout unless a connection attached since `generation`.
    private func scheduleExpiry(_ session: BridgeSession, generation: Int) {
        let timeout = configuration.sessionTimeout
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.expire(session, generation: generation)
        }
    }

    /// The instances of `owner`'s sessions on this bridge, together.
    func instanceCount(owner: String) -> Int {
        let sessions = state.withLock { state in state.sessions.values.filter { $0.owner == owner } }
        return sessions.reduce(0) { $0 + $1.instances.count }
    }

    /// Takes one of `owner`'s messages from the bucket of all their connections.
    func allowMessage(from owner: String) -> Bool {
        userRates.withLock { rates in
            // Buckets that have filled up again are forgotten, so that the map holds only
            // the users who sent something in the last second or so.
            if rates.count > 4096 { rates = rates.filter { !$0.value.isFull() } }
            return rates[owner, default: RateLimiter(perSecond: configuration.maxMessagesPerUser)].allow()
        }
    }

    /// Detaches a connection; a session left without any ends after the timeout,
    /// unless a connection rejoins it first.
    func leave(_ session: BridgeSession, _ connection: BridgeConnection) {
        guard let generation = session.detach(connection) else { return }
        scheduleExpiry(session, generation: generation)
    }

    private func expire(_ session: BridgeSession, generation: Int) {
        guard session.endIfIdle(since: generation) else { return }
        state.withLock { state in
            if state.sessions[session.id] === session { state.sessions[session.id] = nil }
        }
        session.destroyAll(forgettingJournals: true)
    }

    /// Closes every connection with a reason, then destroys every instance; joins
    /// are refused from then on. Returns how many sessions there were.
    @discardableResult
    func shutdown(reason: String) -> Int {
        let sessions = state.withLock { state -> [BridgeSession] in
            state.shutDown = true
            defer { state.sessions = [:] }
            return Array(state.sessions.values)
        }
        for session in sessions {
            for connection in session.end() { connection.close(.goingAway, reason: reason) }
        }
        // The journals stay: a bridge started again with them resumes these sessions.
        for session in sessions { session.destroyAll(forgettingJournals: false) }
        return sessions.count
    }
}
