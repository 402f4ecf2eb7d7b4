import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An instance whose session survives a crash of its process (docs/reliability.md,
/// "Crash-safe sessions"). Everything that changes it (an input, a host's answer, a
/// move of the clock, a goto) is appended to its `JournalStore` (a file, or rows in
/// PostgreSQL) and made durable before it is applied; opening the journal again replays those records into a new instance,
/// which reaches the same state and version, and the session goes on appending.
///
/// Replaying is exact because the instance is made reproducible (`ReplayableOptions`):
/// its seed is in the journal's header, and its clock is manual. A session that asked
/// for the system clock gets a manual clock the journal moves in real time (every
/// 10 ms while an effect is pending; with nothing pending no effect can tell), each
/// move journaled before it is made.
///
/// Changes are journaled and applied one at a time, under a lock held while the
/// library runs; so a change callback must not make a journaled change itself (it
/// would wait for that lock): hand it to another thread.
///
/// With a `JournalCommitter` (the web bridge's group commit) a record is written, then
/// waits for the committer's sync, which it shares with the records of other sessions
/// written meanwhile, and is applied once it is on the disk; records are applied in the
/// journal's order whichever caller's sync returns first. The `async` calls wait for
/// the sync without holding a thread.
public final class JournaledInstance: Sendable {
    public let instance: HostedInstance
    /// Where the journal is (`JournalLocation.name`): a file's path, or a database's words.
    public let path: String
    /// Where the journal is, to delete it when its session ends (`forget`).
    public let location: any JournalLocation
    /// The records replayed when an existing journal was opened; nil for a new journal.
    public let resumed: Resumption?
    /// The feature, and the options the instance was created with (seed and clock as
    /// made replayable), as the journal's header holds them.
    public let feature: String
    public let options: JSONValue
    /// Whether the session asked for the system clock: its manual clock moves in real time.
    public let realTime: Bool
    /// The header's fields that the host gave (`extra` when it was started).
    public let extra: JSONValue

    /// What opening an existing journal did.
    public struct Resumption: Sendable {
        /// Records replayed into the new instance.
        public let records: Int
        /// A torn last record that was dropped (most likely the crash's doing), in words.
        public let warning: String?
        /// The host requests the replay answered or failed: the rest of those the
        /// instance made are still open (see `fk_poll_request` for "requests": "host").
        public let answeredRequests: Set<UInt64>
    }

    let store: any JournalStore
    /// Hears how long records take to become durable.
    let observer: (any JournalObserver)?
    /// Whether records are handed to the store without waiting, and applied once it says
    /// they are durable (group commit, a database); false: appended and applied in turn.
    var defers: Bool { store.defersAppends }
    /// Held while a record is journaled and while records are applied, so both happen
    /// in one order; with a committer, it also holds the records waiting for the disk.
    let applying = LockedValue(Commits())
    let ticker = RealTimeTicker()
    /// The journal's first line, written again when a checkpoint replaces what follows it.
    let header: JSONValue
    /// After how many records a checkpoint is tried (0: never).
    let checkpointEvery: Int
    /// Whether the library tells when its clock wakes an effect next (fk_next_wake): then
    /// the real-time clock is moved only when that is due, or before another record.
    let knowsNextWake: Bool
    /// Whether the library takes checkpoints (fk_checkpoint, fk_restart_effects).
    let canCheckpoint: Bool

    /// Records after which a journal replaces what it holds by a checkpoint, when the
    /// instance allows one then (and tries again after each record until it does).
    public static let defaultCheckpointEvery = 100

    /// The records written and not yet applied (with a committer), in the journal's order.
    struct Commits {
        var nextTicket: UInt64 = 0
        var written: [Written] = []
        /// Callers waiting for their record's sync.
        /// Several per record: the caller that wrote it, and `close` waiting for the last one.
        var waiters: [UInt64: [Waiter]] = [:]
        /// What applying a record did, kept for its caller when another caller applied it.
        var outcomes: [UInt64: Result<Void, JournaledCallError>] = [:]
        /// Real time the clock has not been moved by yet: it wakes nothing (see `tick`).
        var heldTime: UInt64 = 0
        /// Records in the journal after its header.
        var records = 0
        /// The clients' message ids of the inputs sent with one (`sendBy`), lately: what a
        /// client that lost its connection before the reply asks about (`outcome(ofMessage:)`).
        var appliedMessages = RecentMessageIDs()
        /// The records put out of the way as poison inputs (`JournalRecord.poisoned`):
        /// their message ids and their inputs on their states are refused.
        var poisons: [Poison] = []

        /// Whether a record's sync has returned (a record applied already has).
        func isSynced(_ ticket: UInt64) -> Bool {
            guard let record = written.first(where: { $0.ticket == ticket }) else { return true }
            return record.synced != nil
        }
    }

    struct Written {
        let ticket: UInt64
        let record: JournalRecord
        /// Whether a caller waits for what applying it did (a clock move nobody asked for: no).
        let claimed: Bool
        /// nil until the committer has synced it: then `.some(nil)`, or the failure.
        var synced: JournalError??
        /// When it was handed to the store.
        let handed: ContinuousClock.Instant
        /// Its index among the journal's records (after the header).
        var index = 0
    }

    enum Waiter {
        case task(CheckedContinuation<Void, Never>)
        case thread(DispatchSemaphore)
        /// No caller waits (a tick of the real-time clock): the sync's thread applies it.
        case applyOnceSynced
    }

    /// Opens the journal at `path`: resumes the session it holds, or, when there is no
    /// journal there (or an empty file), starts one for a new instance of `feature`
    /// made with `options` (as for fk_create_with_options), with the host's `extra`
    /// fields in its header. A journal of another feature (nil: any), or a damaged one,
    /// is refused. On resume `options` and `extra` are not used: the journal's are.
    ///
    /// A session on the system clock runs on a manual clock moved in real time: by the
    /// journal itself, or, with `drivesClock` false, by whoever records the session too
    /// (calling `advanceClock`, so that each move is journaled and recorded alike).
    public convenience init(
        path: String, library: HostedLibrary, feature: String?, options: JSONValue, startedBy: String,
        extra: JSONValue = .object([]), drivesClock: Bool = true, committer: JournalCommitter? = nil,
        checkpointEvery: Int = JournaledInstance.defaultCheckpointEvery
    ) throws(JournalError) {
        try self.init(
            location: FileJournal(path: path, committer: committer), library: library, feature: feature, options: options,
            startedBy: startedBy, extra: extra, drivesClock: drivesClock, checkpointEvery: checkpointEvery)
    }

    /// `init(path:…)` for a journal kept anywhere (`JournalLocation`).
    public init(
        location: any JournalLocation, library: HostedLibrary, feature: String?, options: JSONValue, startedBy: String,
        extra: JSONValue = .object([]), drivesClock: Bool = true,
        checkpointEvery: Int = JournaledInstance.defaultCheckpointEvery, replaying: ((Int) -> Void)? = nil,
        observer: (any JournalObserver)? = nil
    ) throws(JournalError) {
        let path = location.name
        self.observer = observer
        self.path = path
        self.location = location
        self.checkpointEvery = checkpointEvery
        let records: Int
        let realTime: Bool
        // The client message ids the journal holds, to answer outcome(ofMessage:) after a crash.
        var resumedMessages = RecentMessageIDs()
        var poisons: [Poison] = []
        if let (existing, contents) = try location.openExisting() {
            let header = contents.header
            guard let journaled = header["feature"]?.stringValue else { throw JournalError(path: path, "its header names no feature") }
            if let feature, journaled != feature {
                throw JournalError(path: path, "it is a session of feature \"\(journaled)\", not \"\(feature)\"")
            }
            // The inputs replayed through other code would not make the same session: a
            // journal replays only on the library (name and version) that wrote it.
            let summary = library.summary
            let running = "\(summary.libraryName) \(summary.libraryVersion)"
            if let writer = header["library"]?.stringValue, writer != running {
                throw JournalError(
                    path: path,
                    "it was written by \(writer), and this library is \(running): a journal replays only on the library version that wrote it (its inputs would run through other code); resume it with \(writer), or delete it to start afresh"
                )
            }
            // A state version is a promise about the state's shape; the inputs replayed
            // on a feature whose shape changed would not make the same session.
            let current = library.summary.feature(named: journaled)?.stateVersion ?? 1
            if let written = header["stateVersion"]?.wholeValue, written != current {
                throw JournalError(
                    path: path,
                    "it was written with state version \(written) of feature \"\(journaled)\"; this library's is \(current), and a journal replays only on the version that wrote it"
                )
            }
            self.feature = journaled
            self.options = header["options"] ?? .object([])
            self.extra = header["extra"] ?? .object([])
            // A journal that starts with a checkpoint goes on from it; the rest replays after.
            let checkpoint = contents.records.first.flatMap { $0.members?.count == 1 ? $0["checkpoint"] : nil }
            instance = try Self.create(library, journaled, Self.options(self.options, from: checkpoint), path)
            replaying?(-1)
            var answered = Set<UInt64>()
            // Records a sandboxed plugin faulted on, put away live (`poisoned` with `at`).
            let putAway = Set(
                contents.records.compactMap { json -> Int? in
                    if case .poisoned(_, _, _, let at?)? = try? JournalRecord(json) { return at }
                    return nil
                })
            for (number, json) in contents.records.enumerated() where !(number == 0 && checkpoint != nil) {
                if putAway.contains(number) {
                    replaying?(number)
                    continue
                }
                let failure: String
                do throws(JournalError.Reason) {
                    let record = try JournalRecord(json)
                    switch record {
                    case .respond(let id, _), .fail(let id, _): answered.insert(id)
                    case .sendBy(let message, _): resumedMessages.add(message)
                    case .applied(let messages): for message in messages { resumedMessages.add(message) }
                    case .refused(let entries): for entry in entries { resumedMessages.add(entry.id, .refused(entry.refusal)) }
                    case .poisoned(let message, let record, let version, _):
                        // Put away where it was applied: the replay is at its version now.
                        poisons.append(Poison(message: message, record: record, version: version ?? (try? instance.version())))
                    case .checkpoint: throw "is a checkpoint, which only ever starts a journal"
                    default: break
                    }
                    do throws(FusionHostError) {
                        replaying?(number)
                        // A refusal passed over is what the client was told the first time.
                        if let refusal = try Self.apply(record, to: instance, replaying: true), case .sendBy(let message, _) = record {
                            resumedMessages.refuse(message, RecentMessageIDs.Refusal(refusal))
                        }
                        continue
                    } catch {
                        failure = "cannot be replayed: \(error)"
                    }
                } catch {
                    failure = error.text
                }
                try? instance.destroy()
                throw JournalError(path: path, "record \(number + 1), \(json.jsonText), \(failure)")
            }
            store = existing
            self.header = header
            records = contents.records.count
            realTime = header["realTime"]?.boolValue ?? false
            resumed = Resumption(records: contents.records.count, warning: contents.droppedTail, answeredRequests: answered)
        } else {
            guard let feature else { throw JournalError(path: path, "there is no journal to resume") }
            let (replayable, systemClock) = ReplayableOptions.make(options)
            self.feature = feature
            self.options = replayable
            self.extra = extra
            instance = try Self.create(library, feature, replayable, path)
            let manifest = library.summary
            let header: JSONValue = [
                "fusionJournal": .integer(JournalFile.formatVersion),
                "feature": .string(feature),
                "stateVersion": .integer(manifest.feature(named: feature)?.stateVersion ?? 1),
                "library": .string("\(manifest.libraryName) \(manifest.libraryVersion)"),
                // Every feature's, as the library said at the start: what a later check or
                // migration compares against.
                "stateVersions": .object(manifest.features.map { JSONMember($0.name, .integer($0.stateVersion ?? 1)) }),
                "startedBy": .string(startedBy),
                "realTime": .bool(systemClock),
                "options": replayable,
                "extra": extra
            ]
            self.header = header
            records = 0
            do {
                store = try location.create(header: header)
            } catch {
                try? instance.destroy()
                throw error
            }
            realTime = systemClock
            resumed = nil
        }
        self.realTime = realTime
        knowsNextWake = instance.canTellNextWake
        // A session with time travel keeps its whole journal: a goto may return to a
        // version before any checkpoint, which an instance made from it would not have.
        canCheckpoint = instance.canCheckpoint && (self.options["history"]?.wholeValue ?? 0) == 0
        applying.withLock { commits in
            commits.records = records
            commits.appliedMessages = resumedMessages
            commits.poisons = poisons
        }
        if realTime && drivesClock { ticker.start { [weak self] elapsed in self?.tick(elapsed) } }
    }

    deinit { stop() }

    /// Stops moving the clock. The instance is left to the caller (destroy it when done).
    public func stop() {
        ticker.stop()
    }

    /// Stops the clock and closes the journal now, once every record handed to the
    /// committer is on the disk: its lock is released when this returns, so the file may
    /// be opened again at once (in this process too). Without it the file closes when the
    /// last reference goes, which a clock tick under way may hold a moment longer. Calls
    /// after it fail. The instance is left to the caller.
    public func close() {
        stop()
        if let last = applying.withLock({ $0.written.last?.ticket }) {
            waitForSync(last)
            _ = applySynced(through: last)
        }
        store.close()
    }

    /// Closes the journal (`close`) and deletes it: the instance, or its session, has ended.
    public func forget() {
        close()
        location.delete()
    }

    // MARK: What a session does

    /// fk_send, journaled as `{"send": input}` first. A refused input is journaled too
    /// (it is refused again on replay, changing nothing).
    public func send(_ inputJSON: String) throws(JournaledCallError) {
        guard let input = try? JSONParser.parse(inputJSON) else {
            // Not JSON: the library says so, and there is nothing to journal.
            do throws(FusionHostError) { try instance.send(inputJSON) } catch { throw .refused(error) }
            return
        }
        try perform(.send(input))
    }

    /// `send`, waiting for the disk without holding the thread. With `message`, the
    /// client's id of the message that carried the input is journaled with it, in one
    /// record (`{"sendBy": {"id": …, "input": …}}`), so that whether it was applied
    /// survives a crash (`outcome(ofMessage:)`).
    public func send(_ inputJSON: String, by message: JSONValue? = nil) async throws(JournaledCallError) {
        guard let input = try? JSONParser.parse(inputJSON) else {
            do throws(FusionHostError) { try instance.send(inputJSON) } catch { throw .refused(error) }
            return
        }
        try await perform(message.map { .sendBy(id: $0, input: input) } ?? .send(input))
    }

    /// What became of the input sent with this client message id: applied, or refused by
    /// the feature (with the refusal, also after a crash: the replay refuses it again).
    /// Either way it is done, and sending it again would make it twice. Nil if the journal
    /// holds no such id among at least the last `RecentMessageIDs.kept`.
    public func outcome(ofMessage message: JSONValue) -> RecentMessageIDs.Outcome? {
        applying.withLock { $0.appliedMessages.outcome(of: message) }
    }

    /// fk_goto, journaled as `{"goto": version}`.
    public func goto(version: UInt64) throws(JournaledCallError) { try perform(.goto(version)) }

    /// fk_respond, journaled as `{"respond": {"id": …, "result": …}}`.
    public func respond(to requestID: UInt64, result: JSONValue) throws(JournaledCallError) {
        try perform(.respond(id: requestID, result: result))
    }

    /// `respond`, waiting for the disk without holding the thread.
    public func respond(to requestID: UInt64, result: JSONValue) async throws(JournaledCallError) {
        try await perform(.respond(id: requestID, result: result))
    }

    /// fk_fail_request, journaled as `{"fail": {"id": …, "message": …}}`.
    public func failRequest(_ requestID: UInt64, message: String) throws(JournaledCallError) {
        try perform(.fail(id: requestID, message: message))
    }

    /// `failRequest`, waiting for the disk without holding the thread.
    public func failRequest(_ requestID: UInt64, message: String) async throws(JournaledCallError) {
        try await perform(.fail(id: requestID, message: message))
    }

    /// fk_advance_clock asked for by the session itself, journaled as `{"advance": ns}`.
    public func advanceClock(byNanoseconds nanoseconds: UInt64) throws(JournaledCallError) {
        try perform(.advance(nanoseconds: nanoseconds))
    }

    /// Journals a record, then applies it; one at a time (the clock's ticks included),
    /// so the journal's order is the order things happened.
    private func perform(_ record: JournalRecord) throws(JournaledCallError) {
        guard defers else { return try performSynced(record) }
        guard let ticket = try write({ _ in record }) else { return }
        waitForSync(ticket)
        try applySynced(through: ticket).get()
    }

    private func perform(_ record: JournalRecord) async throws(JournaledCallError) {
        guard defers else { return try performSynced(record) }
        guard let ticket = try write({ _ in record }) else { return }
        await withCheckedContinuation { (synced: CheckedContinuation<Void, Never>) in
            let now = applying.withLock { commits in
                if commits.isSynced(ticket) { return true }
                commits.waiters[ticket, default: []].append(.task(synced))
                return false
            }
            if now { synced.resume() }
        }
        try applySynced(through: ticket).get()
    }

    /// Without deferred appends: the record is appended and synced, then applied, under the lock.
    private func performSynced(_ record: JournalRecord) throws(JournaledCallError) {
        try applying.withLock { (commits: inout Commits) throws(JournaledCallError) in
            do throws(JournalError) {
                // The real time held back first: the record runs at the clock's true time.
                if let held = Self.releaseHeldTime(&commits) {
                    try store.append(held.json)
                    commits.records += 1
                    _ = try? Self.apply(held, to: instance, replaying: false)
                }
                let start = ContinuousClock.now
                try store.append(record.json)
                observer?.durable(after: .now - start)
                commits.records += 1
            } catch {
                throw .notJournaled(error)
            }
            defer { checkpointIfDue(&commits) }
            if case .sendBy(let message, _) = record { commits.appliedMessages.add(message) }
            do throws(FusionHostError) {
                try Self.apply(record, to: instance, replaying: false)
            } catch {
                if HostedInstance.isPluginFault(error) { putAway(record, at: commits.records - 1, &commits) }
                if case .sendBy(let message, _) = record { commits.appliedMessages.refuse(message, RecentMessageIDs.Refusal(error)) }
                throw .refused(error)
            }
        }
    }

    // MARK: Replaying

    /// Applies one record, then lets the effects it started settle (fk_advance_clock by
    /// 0), the same live and on replay. On replay a refusal is passed over (it is what
    /// happened the first time too) and returned.
    @discardableResult
    static func apply(_ record: JournalRecord, to instance: HostedInstance, replaying: Bool) throws(FusionHostError)
        -> FusionHostError?
    {
        var refused: FusionHostError?
        do throws(FusionHostError) {
            switch record {
            case .send(let input), .sendBy(_, let input): try instance.send(input)
            case .goto(let version): _ = try instance.goto(version: version)
            case .respond(let id, let result): try instance.respond(to: id, result: result)
            case .fail(let id, let message): try instance.failRequest(id, message: message)
            case .advance(let nanoseconds): try instance.advanceClock(byNanoseconds: nanoseconds)
            case .checkpoint: return nil  // only ever the first record: the instance was made from it
            case .applied, .refused: return nil  // only what a client asks about (outcome(ofMessage:))
            case .poisoned: return nil  // put out of the way: never applied again
            }
        } catch {
            let refusal = error.status != nil && error.status != .invalidHandle
            if !(replaying && refusal) { throw error }
            refused = error
        }
        try? instance.advanceClock(byNanoseconds: 0)
        return refused
    }

    /// The creation options of an instance that goes on from `checkpoint` (nil: the
    /// journal's own): the checkpoint holds the state and the seed's place.
    private static func options(_ journaled: JSONValue, from checkpoint: JSONValue?) -> JSONValue {
        guard let checkpoint, case .object(let members) = journaled else { return journaled }
        let kept = members.filter { !["state", "stateVersion", "seed", "checkpoint"].contains($0.key) }
        return .object(kept + [JSONMember("checkpoint", checkpoint)])
    }

    private static func create(_ library: HostedLibrary, _ feature: String, _ options: JSONValue, _ path: String) throws(JournalError)
        -> HostedInstance
    {
        do {
            return try library.create(feature: feature, options: options)
        } catch {
            throw JournalError(path: path, "cannot create the instance of \"\(feature)\": \(error)")
        }
    }
}
