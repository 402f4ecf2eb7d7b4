import FusionHost
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The instances of one tab, under a random id. It outlives its connections for a
/// while (`sessionTimeout`), so that a reload finds its instances again; several
/// connections may share it, and each is told every change.
///
/// Locks are held only around this object's own maps, never across a library call:
/// the library calls back (changes, host requests) on the thread of the call.
final class BridgeSession: Sendable {
    let id: String
    /// The signed-in user the session belongs to (the token's `sub`); nil without `--auth`.
    /// Nobody else rejoins it: to them it does not exist (docs/security.md).
    let owner: String?
    /// The libraries whose features the bridge serves; a feature is named as
    /// `LibrarySet` names it ("todo", or "Chores/counter" where two have one).
    private let libraries: LibrarySet
    private let maxInstances: Int
    /// This session's crash journals, one per instance (a folder of files, or rows in a
    /// database other bridges share); nil: no journals.
    let journals: (any SessionJournals)?
    /// What became of each `send` message by its id: applied at most once.
    let ledger = MessageLedger()

    private struct State {
        var instances: [String: BridgeInstance] = [:]
        /// Instance ids in the order they were created.
        var order: [String] = []
        var connections: [Int: BridgeConnection] = [:]
        var nextNumber = 1
        /// Numbers the next instance's journal, in creation order.
        var nextJournal = 1
        /// Set once the session has ended (expired or shut down): it takes no one back.
        var ended = false
        /// Increased by each attach, so that a pending expiry can tell it is stale.
        var generation = 0
    }
    private let state = Mutex(State())
    private let metrics: BridgeMetrics

    init(
        id: String, owner: String? = nil, libraries: LibrarySet, maxInstances: Int, journals: (any SessionJournals)? = nil,
        metrics: BridgeMetrics = BridgeMetrics()
    ) {
        self.id = id
        self.owner = owner
        self.libraries = libraries
        self.maxInstances = maxInstances
        self.journals = journals
        self.metrics = metrics
    }

    // MARK: Connections

    /// Adds a connection; false if the session has ended. `greet` runs under the
    /// session's lock with the instances in creation order, so what it queues (the
    /// welcome, whole states, open requests) comes before any change or request the
    /// library reports to this connection afterwards, and none comes twice.
    func attach(_ connection: BridgeConnection, greet: ([BridgeInstance]) -> Void) -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            greet(state.order.compactMap { state.instances[$0] })
            state.connections[connection.number] = connection
            state.generation += 1
            return true
        }
    }

    /// Removes a connection; returns the generation to expire at if it was the last.
    func detach(_ connection: BridgeConnection) -> Int? {
        state.withLock { state in
            state.connections[connection.number] = nil
            return state.connections.isEmpty && !state.ended ? state.generation : nil
        }
    }

    /// Ends the session if nobody attached since `generation`; true if it ended.
    func endIfIdle(since generation: Int) -> Bool {
        state.withLock { state in
            guard state.connections.isEmpty, state.generation == generation, !state.ended else { return false }
            state.ended = true
            return true
        }
    }

    /// Ends the session now (server shutdown); returns its connections.
    func end() -> [BridgeConnection] {
        state.withLock { state in
            state.ended = true
            return Array(state.connections.values)
        }
    }

    var connections: [BridgeConnection] { state.withLock { Array($0.connections.values) } }

    // MARK: Instances

    func instance(_ id: String) -> BridgeInstance? {
        state.withLock { $0.instances[id] }
    }

    /// The instances in creation order.
    var instances: [BridgeInstance] {
        state.withLock { state in state.order.compactMap { state.instances[$0] } }
    }

    func lookup(_ id: String) throws(BridgeError) -> BridgeInstance {
        guard let instance = instance(id) else { throw .unknownInstance(id) }
        return instance
    }

    /// Creates an instance, or with `reuse` finds the one under `key`. Returns it and
    /// whether it existed already.
    func create(feature: String, options: JSONValue?, key: String?, reuse: Bool) throws(BridgeError) -> (BridgeInstance, existing: Bool) {
        // Checked before creating, and again when adding (another connection of this
        // session may be creating at the same time).
        if let key, let existing = try reusable(key: key, feature: feature, reuse: reuse) { return (existing, true) }
        let full = state.withLock { $0.instances.count >= maxInstances }
        if full { throw .instanceLimit(maxInstances) }
        // Which library, by the name the page sent (checked before anything is made).
        let (library, featureName) = try locate(feature)

        let hosted: HostedInstance
        var journal: JournaledInstance?
        var reserved: String?
        if let journals {
            // With a journal the id is chosen first: the journal's header keeps it.
            let (id, number) = state.withLock { state -> (String, Int) in
                defer { state.nextJournal += 1 }
                if let key { return (key, state.nextJournal) }
                defer { state.nextNumber += 1 }
                return ("#\(state.nextNumber)", state.nextJournal)
            }
            reserved = id
            do throws(JournalError) {
                journal = try JournaledInstance(
                    location: journals.location(instance: number), library: library, feature: featureName,
                    options: options ?? .object([]), startedBy: "fusion serve", extra: ["instance": .string(id)], observer: metrics)
            } catch {
                throw BridgeError(status: "BRIDGE_JOURNAL_FAILURE", message: error.description)
            }
            hosted = journal!.instance
        } else {
            do throws(FusionHostError) {
                hosted = try library.create(feature: featureName, options: options ?? .object([]))
            } catch {
                throw BridgeError(error)
            }
        }
        let made = BridgeInstance(id: reserved ?? "", feature: feature, hosted: hosted, journal: journal)
        enum Added { case added(BridgeInstance), raced(BridgeError), existing(BridgeInstance) }
        let added = state.withLock { state -> Added in
            if let key, let other = state.instances[key] {
                if reuse && other.feature == feature { return .existing(other) }
                return .raced(.keyTaken("this session already has an instance \"\(key)\""))
            }
            if state.ended { return .raced(BridgeError(status: "BRIDGE_SHUTTING_DOWN", message: "the session has ended")) }
            if state.instances.count >= maxInstances { return .raced(.instanceLimit(maxInstances)) }
            let id: String
            if let key {
                id = key
            } else if let reserved {
                id = reserved
            } else {
                id = "#\(state.nextNumber)"
                state.nextNumber += 1
            }
            let instance = reserved != nil ? made : BridgeInstance(id: id, feature: feature, hosted: hosted)
            state.instances[id] = instance
            state.order.append(id)
            return .added(instance)
        }
        switch added {
        case .raced(let error):
            made.destroy(forgettingJournal: true)
            throw error
        case .existing(let other):
            made.destroy(forgettingJournal: true)
            return (other, true)
        case .added(let instance):
            do throws(FusionHostError) {
                try listen(to: instance, hostRequests: options?["requests"]?.stringValue == "host")
            } catch {
                _ = remove(instance)
                instance.destroy(forgettingJournal: true)
                throw BridgeError(error)
            }
            return (instance, false)
        }
    }

    private func reusable(key: String, feature: String, reuse: Bool) throws(BridgeError) -> BridgeInstance? {
        guard let other = instance(key) else { return nil }
        guard reuse else { throw .keyTaken("this session already has an instance \"\(key)\"; send \"reuse\": true to use it") }
        guard other.feature == feature else {
            throw .keyTaken("this session's instance \"\(key)\" is a \"\(other.feature)\", not a \"\(feature)\"")
        }
        return other
    }

    /// Subscribes to the instance's changes and, for "requests": "host", to its host
    /// requests; both are passed on to every connection.
    private func listen(to instance: BridgeInstance, hostRequests: Bool, answered: Set<UInt64> = []) throws(FusionHostError) {
        let id = instance.id
        try instance.hosted.subscribe { [weak self] _ in
            for connection in self?.connections ?? [] { connection.markDirty(id) }
        }
        guard hostRequests else { return }
        // A resumed instance made its requests again while its journal was replayed,
        // with no handler yet: they wait to be polled. Those the journal did not answer
        // are open, and pages are asked again.
        while let event = try instance.hosted.pollRequest() {
            if event.isRequest, let request = event.id, answered.contains(request) { continue }
            _ = instance.record(eventJSON: event.json)
        }
        try instance.hosted.setRequestHandler { [weak self, weak instance] event in
            guard let self, let instance else { return }
            // Recorded and passed on under the session's lock, so that a connection
            // attaching meanwhile gets each request once: in its greeting or from here.
            self.state.withLock { state in
                guard let message = instance.record(eventJSON: event.json) else { return }
                // The state first: a request often follows a change its input made.
                for connection in state.connections.values {
                    connection.markDirty(id)
                    connection.send(message)
                }
            }
        }
    }

    /// Destroys one instance and tells every connection.
    func destroy(_ id: String) throws(BridgeError) {
        guard let instance = instance(id), remove(instance) else { throw .unknownInstance(id) }
        instance.destroy(forgettingJournal: true)
        for connection in connections {
            connection.forget(id)
            connection.send(ServerMessage.destroyed(instance: id))
        }
    }

    /// Removes this very instance (not another one since created under its id).
    private func remove(_ instance: BridgeInstance) -> Bool {
        state.withLock { state in
            guard state.instances[instance.id] === instance else { return false }
            state.order.removeAll { $0 == instance.id }
            state.instances[instance.id] = nil
            return true
        }
    }

    /// Destroys every instance: the session expired (its journals go too), or the
    /// server shuts down or hands the session over (its journals stay, so a restarted
    /// bridge, or the one it went to, resumes it).
    func destroyAll(forgettingJournals: Bool) {
        let all = state.withLock { state -> [BridgeInstance] in
            defer { state.instances = [:]; state.order = [] }
            return state.order.compactMap { state.instances[$0] }
        }
        for instance in all { instance.destroy(forgettingJournal: forgettingJournals) }
        if forgettingJournals { journals?.end() } else { journals?.release() }
    }

    /// The library a feature name (as pages send it) is in, and its name there.
    private func locate(_ feature: String) throws(BridgeError) -> (HostedLibrary, String) {
        if libraries.libraries.count == 1 { return (libraries.libraries[0], feature) }
        do throws(FeatureLookupError) {
            return try libraries.locate(feature)
        } catch {
            throw BridgeError(status: "FK_ERR_UNKNOWN_FEATURE", message: error.description)
        }
    }

    // MARK: Resuming after a crash

    /// Replays the journal at `location` in a child process, and puts out of the way each
    /// record that killed it (a poison input), until a replay goes through; what was put
    /// away, in words.
    private static func putPoisonAway(_ location: any JournalLocation, library: HostedLibrary, check: PoisonCheck) throws(JournalError)
        -> [String]
    {
        var found: [String] = []
        // Each round puts one record away; a session with more poison than this is left as it is.
        for _ in 0..<8 {
            guard let contents = try location.readContents() else { return found }
            switch check.check(contents, library: library.path) {
            case .clean:
                return found
            case .trapped(let index, let signal):
                try location.poison(recordAt: index)
                found.append(
                    "journal \(location.name): record \(index + 1), \(contents.records[index].jsonText), killed the process that applied it (signal \(signal)): put out of the way as a poison input"
                )
            case .trappedCreating(let signal):
                throw JournalError(path: location.name, "making its instance kills the process (signal \(signal))")
            case .failed(let why):
                return found + ["journal \(location.name): not checked for poison inputs: \(why)"]
            }
        }
        return found
    }

    /// The session whose journals are `journals` (a folder per session, a journal per
    /// instance, numbered in creation order), every instance resumed from its journal;
    /// problems (a journal that cannot be resumed is left where it is) in words.
    static func resume(
        journals: any SessionJournals, libraries: LibrarySet, maxInstances: Int, poisonCheck: PoisonCheck? = nil,
        metrics: BridgeMetrics = BridgeMetrics()
    ) -> (BridgeSession, [String]) {
        let session = BridgeSession(
            id: journals.sessionID, owner: journals.owner, libraries: libraries, maxInstances: maxInstances, journals: journals,
            metrics: metrics)
        var problems: [String] = []
        let numbers: [Int]
        do throws(JournalError) { numbers = try journals.instanceNumbers() } catch { return (session, ["\(error)"]) }
        for number in numbers {
            let location = journals.location(instance: number)
            let path = location.name
            do throws(JournalError) {
                // The library that wrote it; another one refuses it, naming both.
                let library =
                    libraries.libraries.count == 1
                    ? libraries.libraries[0] : libraries.library(writing: try location.readHeader() ?? .null) ?? libraries.libraries[0]
                // A sandboxed plugin's fault fails a call, never a bridge, and its record was
                // put away when it faulted: there is nothing for a child's replay to find.
                if journals.mayHoldPoison, !library.isSandboxed, let poisonCheck {
                    let found = try Self.putPoisonAway(location, library: library, check: poisonCheck)
                    metrics.poisonInputs.increment(by: found.filter { $0.contains("poison input") }.count)
                    problems += found
                }
                let journal = try JournaledInstance(
                    location: location, library: library, feature: nil, options: .object([]), startedBy: "fusion serve",
                    observer: metrics)
                guard let instanceID = journal.extra["instance"]?.stringValue else {
                    throw JournalError(path: path, "its header names no bridge instance")
                }
                if let warning = journal.resumed?.warning { problems.append("journal \(path): \(warning)") }
                let instance = BridgeInstance(
                    id: instanceID, feature: libraries.name(of: journal.feature, in: library), hosted: journal.instance, journal: journal)
                session.state.withLock { state in
                    state.instances[instanceID] = instance
                    state.order.append(instanceID)
                    state.nextJournal = max(state.nextJournal, number + 1)
                    if instanceID.hasPrefix("#"), let n = Int(instanceID.dropFirst()) { state.nextNumber = max(state.nextNumber, n + 1) }
                }
                do throws(FusionHostError) {
                    try session.listen(
                        to: instance, hostRequests: journal.options["requests"]?.stringValue == "host",
                        answered: journal.resumed?.answeredRequests ?? [])
                } catch {
                    problems.append("journal \(path): resumed, but its changes cannot be followed: \(error)")
                }
            } catch {
                problems.append("\(error) (left as it is)")
            }
        }
        return (session, problems)
    }
}
