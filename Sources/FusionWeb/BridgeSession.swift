import FusionHost
import Synchronization

/// The instances of one tab, under a random id. It outlives its connections for a
/// while (`sessionTimeout`), so that a reload finds its instances again; several
/// connections may share it, and each is told every change.
///
/// Locks are held only around this object's own maps, never across a library call:
/// the library calls back (changes, host requests) on the thread of the call.
final class BridgeSession: Sendable {
    let id: String
    private let library: HostedLibrary
    private let maxInstances: Int

    private struct State {
        var instances: [String: BridgeInstance] = [:]
        /// Instance ids in the order they were created.
        var order: [String] = []
        var connections: [Int: BridgeConnection] = [:]
        var nextNumber = 1
        /// Set once the session has ended (expired or shut down): it takes no one back.
        var ended = false
        /// Increased by each attach, so that a pending expiry can tell it is stale.
        var generation = 0
    }
    private let state = Mutex(State())

    init(id: String, library: HostedLibrary, maxInstances: Int) {
        self.id = id
        self.library = library
        self.maxInstances = maxInstances
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

        let hosted: HostedInstance
        do throws(FusionHostError) {
            hosted = try library.create(feature: feature, options: options ?? .object([]))
        } catch {
            throw BridgeError(error)
        }
        enum Added { case added(BridgeInstance), raced(BridgeError), existing(BridgeInstance) }
        let added = state.withLock { state -> Added in
            if let key, let other = state.instances[key] {
                if reuse && other.feature == feature { return .existing(other) }
                return .raced(.keyTaken("this session already has an instance \"\(key)\""))
            }
            if state.ended { return .raced(BridgeError(status: "BRIDGE_SHUTTING_DOWN", message: "the session has ended")) }
            if state.instances.count >= maxInstances { return .raced(.instanceLimit(maxInstances)) }
            let id: String
            if let key { id = key } else {
                id = "#\(state.nextNumber)"
                state.nextNumber += 1
            }
            let instance = BridgeInstance(id: id, feature: feature, hosted: hosted)
            state.instances[id] = instance
            state.order.append(id)
            return .added(instance)
        }
        switch added {
        case .raced(let error):
            try? hosted.destroy()
            throw error
        case .existing(let other):
            try? hosted.destroy()
            return (other, true)
        case .added(let instance):
            do throws(FusionHostError) {
                try listen(to: instance, hostRequests: options?["requests"]?.stringValue == "host")
            } catch {
                _ = remove(instance)
                try? hosted.destroy()
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
    private func listen(to instance: BridgeInstance, hostRequests: Bool) throws(FusionHostError) {
        let id = instance.id
        try instance.hosted.subscribe { [weak self] _ in
            self?.connections.forEach { $0.markDirty(id) }
        }
        guard hostRequests else { return }
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
        try? instance.hosted.destroy()
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

    /// Destroys every instance (the session ended).
    func destroyAll() {
        let all = state.withLock { state -> [BridgeInstance] in
            defer { state.instances = [:]; state.order = [] }
            return state.order.compactMap { state.instances[$0] }
        }
        for instance in all { try? instance.hosted.destroy() }
    }
}
