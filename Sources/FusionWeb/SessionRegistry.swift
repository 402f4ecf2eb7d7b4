import FusionHost
import Synchronization

/// Every session of the bridge by id: joins, rejoins, the timeout after a session's
/// last connection, the limit on sessions, and shutdown.
final class SessionRegistry: Sendable {
    let libraries: LibrarySet
    let configuration: BridgeConfiguration

    private struct State {
        var sessions: [String: BridgeSession] = [:]
        var nextConnection = 1
        var shutDown = false
    }
    private let state = Mutex(State())
    private let manifest = Mutex<String?>(nil)

    /// The journals' shared syncs (group commit); nil without journals or with `each`.
    let committer: JournalCommitter?

    init(libraries: LibrarySet, configuration: BridgeConfiguration) {
        self.libraries = libraries
        self.configuration = configuration
        committer =
            configuration.journalFolder != nil && configuration.journalSync == .group
            ? JournalCommitter(label: "fusion.serve.journal-commit") : nil
    }

    var sessionCount: Int { state.withLock { $0.sessions.count } }

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

    func makeConnection() -> BridgeConnection {
        BridgeConnection(
            number: state.withLock { state in
                defer { state.nextConnection += 1 }
                return state.nextConnection
            })
    }

    /// Attaches a connection to the session it asks for, or to a new one when that
    /// one is unknown or ended. Returns the session and whether it was resumed.
    /// `greet` queues the connection's first messages (see `BridgeSession.attach`).
    func join(
        _ connection: BridgeConnection, requested: Substring?,
        greet: (BridgeSession, _ resumed: Bool, [BridgeInstance]) -> Void
    ) throws(BridgeError) -> BridgeSession {
        let outcome = state.withLock { state -> Result<BridgeSession, BridgeError> in
            if state.shutDown { return .failure(.shuttingDown) }
            if let requested, SessionID.isWellFormed(requested), let session = state.sessions[String(requested)],
                session.attach(connection, greet: { greet(session, true, $0) })
            {
                return .success(session)
            }
            guard state.sessions.count < configuration.maxSessions else { return .failure(.sessionLimit(configuration.maxSessions)) }
            var id = SessionID.make()
            while state.sessions[id] != nil { id = SessionID.make() }
            let session = BridgeSession(
                id: id, libraries: libraries, maxInstances: configuration.maxInstancesPerSession,
                journals: configuration.journalFolder, committer: committer)
            _ = session.attach(connection, greet: { greet(session, false, $0) })
            state.sessions[id] = session
            return .success(session)
        }
        return try outcome.get()
    }

    /// Resumes the sessions whose journals are in the journal folder (a bridge that
    /// crashed, or was stopped, with sessions open). Each waits for its tab to rejoin
    /// as after a reload, and ends after the session timeout if none does. Returns
    /// how many were resumed, and problems in words.
    func resumeJournaledSessions() -> (sessions: Int, problems: [String]) {
        guard let folder = configuration.journalFolder else { return (0, []) }
        var problems: [String] = []
        var resumed: [BridgeSession] = []
        for id in FileBytes.names(inFolder: folder) where SessionID.isWellFormed(Substring(id)) {
            let (session, found) = BridgeSession.resume(
                id: id, libraries: libraries, maxInstances: configuration.maxInstancesPerSession,
                journals: folder, committer: committer)
            problems += found
            resumed.append(session)
        }
        state.withLock { state in
            for session in resumed { state.sessions[session.id] = session }
        }
        let timeout = configuration.sessionTimeout
        for session in resumed {
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.expire(session, generation: 0)
            }
        }
        return (resumed.count, problems)
    }

    /// Detaches a connection; a session left without any ends after the timeout,
    /// unless a connection rejoins it first.
    func leave(_ session: BridgeSession, _ connection: BridgeConnection) {
        guard let generation = session.detach(connection) else { return }
        let timeout = configuration.sessionTimeout
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.expire(session, generation: generation)
        }
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
