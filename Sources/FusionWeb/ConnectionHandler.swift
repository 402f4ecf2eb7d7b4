import Dispatch
import FusionAuth
import FusionHost
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// Serves one WebSocket: joins its session, then reads messages one at a time and
/// applies each, while the connection's writer sends what is queued.
struct ConnectionHandler: Sendable {
    let registry: SessionRegistry
    let logger: Logger

    private var configuration: BridgeConfiguration { registry.configuration }

    /// `drop` closes the connection's socket at once, with no close handshake; `socket`
    /// says whether it takes a write without waiting, and holds its flushes back while the
    /// reader writes a message's answer. `user` is
    /// who the handshake's token named (`--auth`); nil: nobody signed in. `eventLoop`: the
    /// channel's, where the connection's messages are then handled; nil: the global pool.
    func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, requestedSession: Substring?, proposedSession: String? = nil,
        user: AuthenticatedUser? = nil, eventLoop: (any EventLoop)? = nil, socket: SocketWrites,
        drop: @escaping @Sendable () -> Void
    ) async {
        let connection = registry.makeConnection { [logger] number in
            logger.info("connection \(number): dropped, the page is not reading its messages")
            drop()
        }
        defer { registry.connectionEnded() }
        let session: BridgeSession
        do throws(BridgeError) {
            session = try await join(connection, requested: requestedSession, proposed: proposedSession, owner: user?.subject).get()
        } catch {
            try? await outbound.write(.text(ServerMessage.error(re: nil, error)))
            // A full server is worth trying later (1013); one shutting down will be back (1001).
            if error == .shuttingDown {
                try? await outbound.close(.goingAway, reason: "server shutting down")
            } else if error.status == "BRIDGE_USER_LIMIT" {
                try? await outbound.close(.policyViolation, reason: "too many sessions of yours")
            } else if error.status == "BRIDGE_JOURNAL_FAILURE" {
                // The session store did not answer (or the take-over failed): worth a retry.
                try? await outbound.close(.unexpectedServerError, reason: "the session store did not answer; try again")
            } else {
                try? await outbound.close(.init(codeNumber: 1013), reason: "too many sessions")
            }
            return
        }
        // Reading runs in this task; writing in a task that runs only while something is
        // queued (BridgeConnection): an idle connection's tasks are most of its memory.
        connection.startWriting(to: outbound, session: session, holds: { registry.holdsSessions }, socket: socket)
        // Reading prefers the channel's event loop (EventLoopTaskExecutor): a frame read there
        // is handled there, and its answer written there. Only from here on: the join, the
        // deepest the task's stack gets, would keep a larger stack for an idle connection.
        await withTaskExecutorPreference(eventLoop.map(EventLoopTaskExecutor.init)) {
            guard let user else { return await read(inbound, connection: connection, session: session, user: nil) }
            await withTaskGroup(of: Void.self) { group in
                // The token's end is the connection's: a rejoin must show a fresh one.
                group.addTask {
                    try? await Task.sleep(for: .seconds(max(0, user.secondsLeft())))
                    if !Task.isCancelled {
                        logger.info("connection \(connection.number): the token expired")
                        connection.close(BridgeCloseCode.unauthenticated, reason: "the token expired: sign in again")
                    }
                }
                await read(inbound, connection: connection, session: session, user: user)
                group.cancelAll()
            }
        }
        // Reading ended: the page closed (or answered a close), the socket failed, or it was
        // closed (a close unanswered for a second, a page that does not read). A writer
        // still at work ends now.
        await connection.finish()
        registry.leave(session, connection)
        logger.info("connection \(connection.number): closed")
    }

    /// Joins the connection to its session on a thread of its own: a take-over waits for
    /// the session store (the database, or a live holder's hand-over, for seconds), and
    /// waiting on the cooperative pool would hold up every other connection's tasks (after
    /// a bridge died, the handshakes of its clients' rejoins went unanswered for seconds).
    private func join(
        _ connection: BridgeConnection, requested: Substring?, proposed: String?, owner: String?
    ) async -> Result<BridgeSession, BridgeError> {
        await withCheckedContinuation { done in
            DispatchQueue.global().async {
                do throws(BridgeError) {
                    let session = try registry.join(connection, requested: requested, proposed: proposed, owner: owner) {
                        session, resumed, instances in
                        logger.info(
                            "connection \(connection.number): session \(SessionID.logTag(session.id)) \(resumed ? "rejoined" : "new")")
                        greet(connection, session: session, resumed: resumed, instances: instances)
                    }
                    done.resume(returning: .success(session))
                } catch {
                    done.resume(returning: .failure(error))
                }
            }
        }
    }

    /// The welcome, then every instance's whole state and its open host requests.
    private func greet(_ connection: BridgeConnection, session: BridgeSession, resumed: Bool, instances: [BridgeInstance]) {
        connection.send(
            ServerMessage.welcome(
                session: session.id, resumed: resumed, instances: instances.map { ($0.id, $0.feature) },
                libraries: registry.libraries, configuration: configuration))
        for instance in instances {
            connection.resend(instance.id)
            instance.openRequestMessages.forEach(connection.send)
        }
    }

    // MARK: Reading

    /// Reads frames into messages, dropping (with an error) those over the size limit
    /// without keeping their bytes, and those over the rate limit.
    private func read(_ inbound: WebSocketInboundStream, connection: BridgeConnection, session: BridgeSession, user: AuthenticatedUser?)
        async
    {
        var frames = inbound.makeAsyncIterator()
        var limiter = RateLimiter(perSecond: configuration.maxMessagesPerSecond)
        var message: [UInt8] = []
        var size = 0
        var isBinary = false
        // Whether a message's first frame came without FIN: only continuations may follow.
        var open = false
        // The peer broke the framing: the close is queued, and what it sends until it
        // answers the close (or the close times out) is not read.
        var failed = false
        do {
            while let frame = try await frames.next() {
                if failed { continue }
                // RFC 6455 5.4: a continuation with no message open, or a new message before
                // the open one ended, fails the connection. Read on, the first re-applied the
                // message before it (its bytes were still here) and the second dropped the
                // open one without a reply.
                guard (frame.opcode == .continuation) == open else {
                    let reason = open ? "a new message began before the last one ended" : "a continuation frame with no message open"
                    connection.close(.protocolError, reason: reason)
                    failed = true
                    continue
                }
                if frame.opcode != .continuation {
                    message.removeAll(keepingCapacity: true)
                    size = 0
                    isBinary = frame.opcode == .binary
                }
                open = !frame.fin
                size += frame.data.readableBytes
                if size <= configuration.maxMessageBytes { message.append(contentsOf: frame.data.readableBytesView) }
                guard frame.fin else { continue }
                guard limiter.allow() else {
                    connection.send(ServerMessage.error(re: nil, .rateLimited(limit: configuration.maxMessagesPerSecond)))
                    continue
                }
                if let user, !registry.allowMessage(from: user.subject) {
                    connection.send(ServerMessage.error(re: nil, .userRateLimited(limit: configuration.maxMessagesPerUser)))
                    continue
                }
                if size > configuration.maxMessageBytes {
                    connection.send(ServerMessage.error(re: nil, .tooLarge(size: size, limit: configuration.maxMessageBytes)))
                } else if isBinary {
                    connection.send(ServerMessage.error(re: nil, .malformed("messages are text frames holding JSON; got a binary frame")))
                } else if !UTF8Validation.isValid(message) {
                    // RFC 6455 8.1: text that is not UTF-8 fails the connection (1007); nothing
                    // after it is read.
                    connection.close(.dataInconsistentWithMessage, reason: "a text message that is not UTF-8")
                    failed = true
                } else {
                    await connection.apply { await handle(message, connection: connection, session: session, user: user) }
                }
                if message.capacity > 4 * 1024 { message = [] }  // a large message's buffer is not kept
            }
        } catch {
            // The socket failed or the peer broke the protocol; the session outlives it.
        }
    }

    // MARK: Applying

    /// The `ok` for a message that may have changed an instance. The instance is marked
    /// dirty first: a change can be reported after the call that made it returned
    /// (another thread was delivering changes then), and its patch must still come
    /// before this `ok`. A flush with nothing new sends nothing.
    private func acknowledge(_ re: JSONValue?, _ instance: BridgeInstance, on connection: BridgeConnection) {
        connection.markDirty(instance.id)
        connection.send(ServerMessage.ok(re: re, version: try? instance.hosted.version()))
    }

    private func handle(_ bytes: [UInt8], connection: BridgeConnection, session: BridgeSession, user: AuthenticatedUser?) async {
        // A bridge past its lease may have lost the session to another: nothing is answered
        // from its copy (the socket is being closed; the client rejoins the new holder).
        guard registry.holdsSessions else { return }
        let envelope: ClientEnvelope
        do throws(RejectedMessage) {
            envelope = try ClientEnvelope.parse(bytes)
        } catch {
            connection.send(ServerMessage.error(re: error.id, error.error))
            return
        }
        do throws(BridgeError) {
            try await apply(envelope, connection: connection, session: session, user: user)
        } catch {
            // Fenced off the session (another bridge took it over): no reply, the client
            // asks the bridge that holds it now whether the message was applied.
            if error == .sessionMoved { return registry.handOver(session.id) }
            // A write that may land yet: the session is read back from its journal by the
            // next copy, which the client rejoins (and asks `applied`) with the same close.
            if error == .journalUncertain { return registry.handOver(session.id, reason: "a journal write got no answer; reconnect") }
            registry.metrics.error(error.status)
            connection.send(ServerMessage.error(re: envelope.id, error))
        }
    }

    private func apply(
        _ envelope: ClientEnvelope, connection: BridgeConnection, session: BridgeSession, user: AuthenticatedUser?
    ) async throws(BridgeError) {
        let re = envelope.id
        try session.refuseIfQuarantined(envelope.message)  // docs/deploy.md, "Poison inputs"
        switch envelope.message {
        case .manifest:
            let json: String
            do throws(FusionHostError) { json = try registry.manifestJSON() } catch { throw BridgeError(error) }
            connection.send(ServerMessage.manifest(re: re, json: json))

        case .create(let feature, let options, let key, let reuse):
            let options = try userOptions(options, user: user)
            // Reusing an instance the session has (by its key) makes none.
            let reusing = key.flatMap(session.instance) != nil
            if let user, !reusing, registry.instanceCount(owner: user.subject) >= configuration.maxInstancesPerUser {
                throw .userLimit("instances", configuration.maxInstancesPerUser, flag: "--max-instances-per-user")
            }
            let (instance, existing) = try session.create(feature: feature, options: options, key: key, reuse: reuse)
            // The state goes first (to every connection of the session), then the reply.
            for other in session.connections where other !== connection { other.resend(instance.id) }
            connection.resend(instance.id)
            if existing { instance.openRequestMessages.forEach(connection.send) }
            connection.send(ServerMessage.created(re: re, instance: instance.id, feature: instance.feature, existing: existing))

        case .send(let id, let input):
            let instance: BridgeInstance
            do throws(BridgeError) { instance = try session.lookup(id) } catch {
                // A message id done already is answered as it was, even if its instance is
                // gone since (an unknown instance would say "not applied: send it again").
                // Looked up only here: a live instance's claim finds it in the ledger.
                guard let message = re?.stringValue, let done = session.ledger.outcome(message) else { throw error }
                return try answer(done, re: re, instance: nil, on: connection)
            }
            let start = ContinuousClock.now
            if let message = re?.stringValue {
                try await sendOnce(input, message: message, to: instance, session: session, connection: connection)
            } else {
                try await instance.send(input)
                acknowledge(re, instance, on: connection)
            }
            registry.metrics.inputs.increment()
            registry.metrics.inputToOK.recordNanoseconds((ContinuousClock.now - start).nanoseconds)

        case .applied(let ids):
            // Answered once every input of the session in flight now (on a connection that
            // dropped, or a write the database has not answered) is done or let go.
            await session.ledger.settle()
            let instances = session.instances
            let poisoned = ids.filter { id in instances.contains { $0.wasPoisoned(id) } }
            var applied: [String] = []
            var refused: [(id: String, refusal: BridgeError)] = []
            for id in ids where !poisoned.contains(id) {  // a poison input is said to be one
                switch session.ledger.outcome(id) ?? instances.lazy.compactMap({ $0.journaledOutcome(id) }).first {
                case .applied?: applied.append(id)
                case .refused(let refusal)?: refused.append((id, refusal))
                case nil: break
                }
            }
            connection.send(ServerMessage.applied(re: re, ids: applied, refused: refused, poisoned: poisoned))

        case .respond(let id, let request, let result):
            let instance = try session.lookup(id)
            try await instance.respond(to: request, result: result)
            acknowledge(re, instance, on: connection)

        case .fail(let id, let request, let message):
            let instance = try session.lookup(id)
            try await instance.failRequest(request, message: message)
            acknowledge(re, instance, on: connection)

        case .advanceClock(let id, let seconds):
            let instance = try session.lookup(id)
            let nanoseconds = UInt64((seconds * 1e9).rounded())
            // fk_advance_clock runs the woken effects on the calling thread until they
            // settle: a thread of its own, so that the connection's tasks go on meanwhile.
            let outcome = await withCheckedContinuation { (done: CheckedContinuation<BridgeError?, Never>) in
                DispatchQueue.global().async {
                    do throws(BridgeError) {
                        try instance.advanceClock(byNanoseconds: nanoseconds)
                        done.resume(returning: nil)
                    } catch {
                        done.resume(returning: error)
                    }
                }
            }
            if let outcome { throw outcome }
            acknowledge(re, instance, on: connection)

        case .resync(let id):
            let instance = try session.lookup(id)
            connection.resend(instance.id)
            connection.send(ServerMessage.ok(re: re, version: nil))

        case .destroy(let id):
            try session.destroy(id)
            connection.send(ServerMessage.ok(re: re, version: nil))
        }
    }

    /// A `send` with a string id, applied at most once in the session (docs/web-protocol.md,
    /// "Exactly once"): an id done already gets the reply it had, one being applied waits
    /// for it. The id is journaled with the input, so a later copy of the session knows it.
    private func sendOnce(
        _ input: JSONValue, message: String, to instance: BridgeInstance, session: BridgeSession, connection: BridgeConnection
    ) async throws(BridgeError) {
        let re = JSONValue.string(message)
        switch await session.ledger.claim(message, journaled: { instance.journaledOutcome(message) }) {
        case .done(let outcome):
            try answer(outcome, re: re, instance: instance, on: connection)
        case .mine:
            do throws(BridgeError) {
                try await instance.send(input, message: message)
            } catch {
                session.ledger.finish(message, error.isLibraryRefusal ? .refused(error) : nil)
                throw error
            }
            let version = try? instance.hosted.version()
            session.ledger.finish(message, .applied(version: version))
            connection.markDirty(instance.id)
            connection.send(ServerMessage.ok(re: re, version: version))
        }
    }

    /// The reply a `send` whose id was done gets again: the `ok` it had (with the version
    /// now, when the first one's is not known), or the feature's refusal.
    private func answer(
        _ outcome: MessageLedger.Outcome, re: JSONValue?, instance: BridgeInstance?, on connection: BridgeConnection
    ) throws(BridgeError) {
        switch outcome {
        case .applied(let version):
            if let instance { connection.markDirty(instance.id) }
            connection.send(ServerMessage.ok(re: re, version: version ?? instance.flatMap { try? $0.hosted.version() }))
        case .refused(let refusal):
            throw refusal
        }
    }

    /// The creation options with the signed-in user as `"user"` (`{"subject", "claims"}`):
    /// the feature learns who its user is from the bridge, never from the page, so a page
    /// that sends `"user"` itself is refused.
    private func userOptions(_ options: JSONValue?, user: AuthenticatedUser?) throws(BridgeError) -> JSONValue? {
        if options?["user"] != nil { throw .userOption }
        guard let user else { return options }
        return .object((options?.members ?? []) + [JSONMember("user", user.optionValue)])
    }
}
