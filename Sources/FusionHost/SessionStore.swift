#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a bridge keeps its sessions' journals (docs/deploy.md): a folder of files on its
/// own disk (`JournalFolder`), or a database that several bridges share
/// (FusionJournalPostgres), from which any bridge can take over any session. A session is
/// live on one bridge at a time: the store says which.
public protocol SessionStore: Sendable {
    /// Words for the log: the folder, or the database (without its password).
    var description: String { get }
    /// Whether another bridge may hold sessions of this store: then a session the bridge
    /// does not know is looked for in the store (`takeOver`) before a new one is made.
    var isShared: Bool { get }
    /// Claims a new session, `id`, for this bridge; `owner` is the signed-in user it
    /// belongs to (nil: a bridge without `--auth`).
    func start(session id: String, owner: String?) throws(JournalError) -> any SessionJournals
    /// Takes over the session `id` for this bridge: at once when its holder is gone, by
    /// hand-over when it is alive. nil when the store has no such session, or when it is
    /// not `owner`'s: then nothing is asked of its holder (docs/security.md).
    func takeOver(session id: String, owner: String?) throws(JournalError) -> (any SessionJournals)?
    /// The sessions to resume when the bridge starts: a folder's are all its own; a shared
    /// store's are taken over one by one, when a client asks for them.
    func sessionsToResume() -> [String]
    /// Tells the bridge when another one asks for a session it holds (hand-over): the
    /// bridge finishes what it is doing, closes the session's sockets, and `release`s it.
    func onHandOverRequest(_ handler: @escaping @Sendable (String) -> Void)
    /// Whether this bridge still holds the sessions it took: false once it may have lost
    /// them to another bridge without being told, and then they are given up at once
    /// (`onSessionsLost` hears which) (a shared store's lease ran out: the
    /// bridge was frozen, or cut off from the database). A bridge checks it before it
    /// answers a session's message, so that no tab reads a copy another bridge went on from.
    func stillHoldsSessions() -> Bool
    /// Tells the bridge when it lost every session it held at once (the lease ran out, or
    /// the connection holding their locks went): it closes their sockets and drops their
    /// copies, and takes none back without a fresh lock and epoch.
    func onSessionsLost(_ handler: @escaping @Sendable ([String]) -> Void)
    /// Whether the store answers now (`/healthz`).
    func isReady() -> Bool
    /// Lets go of everything (the bridge stops).
    func close()
}

extension SessionStore {
    /// A store only this bridge uses never loses its sessions to another.
    public func stillHoldsSessions() -> Bool { true }
    public func onSessionsLost(_ handler: @escaping @Sendable ([String]) -> Void) {}
}

/// The journals of one session that this bridge holds: one per instance, numbered in
/// creation order.
public protocol SessionJournals: Sendable {
    var sessionID: String { get }
    /// The user the session belongs to; nil: nobody signed in (a bridge without `--auth`).
    var owner: String? { get }
    /// Where instance `number`'s journal is.
    func location(instance number: Int) -> any JournalLocation
    /// Whether the session's last holder may have died of one of its inputs (it did not
    /// let the session go cleanly): its journals are replayed in a child process first
    /// (docs/deploy.md, "Poison inputs").
    var mayHoldPoison: Bool { get }
    /// The numbers of the instances whose journals the session has, in creation order.
    func instanceNumbers() throws(JournalError) -> [Int]
    /// The session ended: every journal of it is deleted.
    func end()
    /// This bridge lets the session go (it stops, or hands it over): the journals stay for
    /// whoever takes it next.
    func release()
}

/// Sessions in a folder of this machine (`fusion serve --journal DIR`): a folder per
/// session, a journal file per instance (`1.journal`, `2.journal`, … in creation order).
/// One bridge owns the folder; a restarted bridge resumes every session in it.
public struct JournalFolder: SessionStore {
    public let folder: String
    /// The journals' shared syncs (group commit); nil: each record synced on its own.
    public let committer: JournalCommitter?

    public init(folder: String, committer: JournalCommitter?) {
        self.folder = folder
        self.committer = committer
    }

    public var description: String { folder }
    public var isShared: Bool { false }

    /// Also what resumes a session of the folder (`owner` nil: the one it has stays).
    public func start(session id: String, owner: String?) throws(JournalError) -> any SessionJournals {
        let session = Session(folder: "\(folder)/\(id)", sessionID: id, committer: committer)
        if let owner {
            mkdir(session.folder, 0o700)
            guard FileBytes.write(Array(owner.utf8), to: session.ownerFile) else {
                throw JournalError(path: session.ownerFile, "cannot write the session's owner")
            }
        }
        return session
    }

    public func takeOver(session id: String, owner: String?) throws(JournalError) -> (any SessionJournals)? { nil }

    public func sessionsToResume() -> [String] { FileBytes.names(inFolder: folder) }

    public func onHandOverRequest(_ handler: @escaping @Sendable (String) -> Void) {}

    public func isReady() -> Bool { access(folder, W_OK) == 0 }

    public func close() { committer?.stop() }

    /// One session's folder.
    public struct Session: SessionJournals {
        let folder: String
        public let sessionID: String
        let committer: JournalCommitter?

        /// A folder's sessions are resumed after a crash as after a stop: each is checked.
        public var mayHoldPoison: Bool { true }

        /// The owner's subject, in a file of its own next to the journals.
        var ownerFile: String { "\(folder)/owner" }

        public var owner: String? {
            (try? FileBytes.read(ownerFile)).map { String(decoding: $0, as: UTF8.self) }
        }

        public func location(instance number: Int) -> any JournalLocation {
            mkdir(folder, 0o755)
            return FileJournal(path: "\(folder)/\(number).journal", committer: committer)
        }

        public func instanceNumbers() throws(JournalError) -> [Int] {
            FileBytes.names(inFolder: folder).compactMap { name -> Int? in
                guard name.hasSuffix(".journal") else { return nil }
                return Int(name.dropLast(8))
            }.sorted()
        }

        public func end() {
            unlink(ownerFile)
            rmdir(folder)
        }

        public func release() {}
    }
}
