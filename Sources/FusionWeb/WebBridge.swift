import CFatalSignal
import FusionAuth
import FusionHost
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The web bridge: an HTTP server for the pages and the web client, and one WebSocket
/// through which pages drive the features of one or several libraries. It is a host like
/// `fusion run`: it reaches each library only through `HostedLibrary` (the C ABI), never
/// its Swift types.
///
/// `run()` serves until SIGINT or SIGTERM; then every socket is closed with the reason
/// "server shutting down" and every instance destroyed before it returns.
public struct WebBridge: Sendable {
    /// The libraries served, side by side: a feature two of them have is created by its
    /// qualified name ("Chores/counter").
    public let libraries: LibrarySet
    public let configuration: BridgeConfiguration
    private let registry: SessionRegistry
    private let origins: OriginPolicy
    private let pages: StaticFiles?
    private let client: StaticFiles?

    public init(libraries: LibrarySet, configuration: BridgeConfiguration) {
        self.libraries = libraries
        self.configuration = configuration
        registry = SessionRegistry(libraries: libraries, configuration: configuration)
        origins = OriginPolicy(
            host: configuration.host, allowed: configuration.allowedOrigins + configuration.publicOrigins,
            trustedProxies: configuration.trustedProxies)
        pages = StaticFiles(folder: configuration.staticFolder)
        client = StaticFiles(folder: configuration.clientFolder)
    }

    /// One library's features.
    public init(library: HostedLibrary, configuration: BridgeConfiguration) {
        // One library cannot clash with itself.
        self.init(libraries: try! LibrarySet([library]), configuration: configuration)
    }

    /// Resumes the sessions whose crash journals are in `configuration.journalFolder`
    /// (call before `run`): how many, and the problems met, in words.
    public func resumeJournaledSessions() -> (sessions: Int, problems: [String]) {
        registry.resumeJournaledSessions()
    }

    /// The journal records written so far and the syncs that put them on the disk, with
    /// group commit (`journalSync` `.group`); nil without it.
    public var journalCounts: JournalCommitter.Counts? { registry.committer?.counts }

    /// Whether a bridge handles each connection's messages on the connection's event loop
    /// (EventLoopTaskExecutor) rather than on Swift's pool: only where no input's call
    /// blocks its thread, which would hold up every other connection of that loop. A
    /// sandboxed module's call may run for its time limit; a file journal that syncs every
    /// record on its own (`journalSync` `.each`) waits for the disk at every input; and the
    /// PostgreSQL store's connections run on these same loops, where a call that waits for
    /// the database (an instance made, a checkpoint) would wait for itself. Such a bridge
    /// handles its messages on the pool. A file journal with group commit waits for each
    /// input's sync without a thread (its committer's thread wakes the task).
    public static func handlesMessagesOnEventLoops(libraries: LibrarySet, journal: JournalKind) -> Bool {
        journal != .fileSyncingEachRecord && journal != .sharedStore && !libraries.libraries.contains { $0.isSandboxed }
    }

    /// What keeps a bridge's sessions, as far as its threads are concerned.
    public enum JournalKind: Sendable {
        /// No journal.
        case none
        /// `journalFolder` with group commit (`journalSync` `.group`).
        case fileWithGroupCommit
        /// `journalFolder` with `journalSync` `.each`.
        case fileSyncingEachRecord
        /// A `sessionStore` (PostgreSQL).
        case sharedStore

        /// The kind `configuration` asks for.
        public init(_ configuration: BridgeConfiguration) {
            self.init(
                sharedStore: configuration.sessionStore != nil, journalFolder: configuration.journalFolder != nil,
                sync: configuration.journalSync)
        }

        /// The kind a bridge will have, before its configuration is made (NIO's loop count
        /// is settled before the store connects).
        public init(sharedStore: Bool, journalFolder: Bool, sync: BridgeConfiguration.JournalSync) {
            if sharedStore {
                self = .sharedStore
            } else if !journalFolder {
                self = .none
            } else {
                self = sync == .group ? .fileWithGroupCommit : .fileSyncingEachRecord
            }
        }
    }

    /// For a bridge that handles messages on its event loops: asks NIO for one loop more
    /// than the machine has cores, unless `NIO_SINGLETON_GROUP_LOOP_COUNT` says how many.
    /// A connection's work then waits for its own loop's thread, and with as many loops as
    /// cores, one loop sharing its core with another process (a database, the load's own
    /// client) held up its connections while the other core had nothing to do: the p99 at
    /// 10,000 inputs a second was about halved with one more (docs/performance.md, "The
    /// web bridge's tail"). Call it first thing in a process, before anything uses NIO's
    /// event loops (it has no effect after), and once.
    public static func suggestEventLoopCount(libraries: LibrarySet, journal: JournalKind) {
        guard handlesMessagesOnEventLoops(libraries: libraries, journal: journal),
            getenv("NIO_SINGLETON_GROUP_LOOP_COUNT") == nil
        else { return }
        NIOSingletons.groupLoopCountSuggestion = System.coreCount + 1
    }

    /// Serves until a signal stops it. `onListening` is called with the URL to open
    /// once the socket is bound (with the port the system chose, for port 0).
    ///
    /// `onStuck` is called when, a second and a half after every WebSocket ended and
    /// every instance was destroyed, the HTTP server has still not stopped: it waits
    /// for connections that never sent a request (browsers keep spare ones open), and
    /// neither graceful shutdown nor cancellation ends that wait. Nothing is left to
    /// lose then, so a command-line host exits; nil waits.
    public func run(
        logLevel: Logger.Level = .warning, onListening: @escaping @Sendable (String) -> Void,
        onStuck: (@Sendable () -> Void)? = nil
    ) async throws {
        // A feature that traps kills the bridge: its sockets go first, so that another
        // bridge takes its sessions over at once, not after the backtrace (docs/deploy.md).
        _ = fusion_release_sockets_on_fatal_signal()
        let logger = {
            var logger = Logger(label: "fusion.serve"); logger.logLevel = logLevel; return logger
        }()
        let handler = ConnectionHandler(registry: registry, logger: logger)
        // Every socket's heartbeat, from one timer (docs/deploy.md, "Liveness and fencing"):
        // each socket is looked at every half period, in one of eight groups in turn.
        let heartbeats = configuration.heartbeat.map { period in
            Task { [registry = self.registry] in
                let slots = 8
                var slot = 0
                while !Task.isCancelled {
                    try? await Task.sleep(for: period / (2 * slots))
                    registry.heartbeat(slot: slot, of: slots)
                    slot = (slot + 1) % slots
                }
            }
        }
        defer { heartbeats?.cancel() }
        let origins = origins
        let registry = registry
        let configuration = configuration
        let host = configuration.host
        let peerTimeout = configuration.peerTimeout
        let onEventLoops = Self.handlesMessagesOnEventLoops(libraries: libraries, journal: JournalKind(configuration))
        // Request heads are bounded in size and time (RequestHeadGuard).
        let upgrade = HTTPServerBuilder.guardedHTTP1WebSocketUpgrade(
            // A page that does not answer a close within a second is dropped, so that
            // shutdown never waits long on a frozen tab. A close frame whose reason is not
            // UTF-8 is answered 1002 (the text messages' own check is the handler's).
            configuration: .init(
                maxFrameSize: configuration.hardFrameLimit, autoPing: .disabled, closeTimeout: .seconds(1), validateUTF8: true)
        ) {
            (request: HTTPRequest, channel: any Channel, _: Logger) async throws -> ShouldUpgradeResult<
                WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
            > in
            let (path, query) = Self.split(request.path ?? "/")
            guard path == "/ws" else { return .dontUpgrade }
            // Next to the socket: every close of this connection becomes a lingering one, and
            // one whose page vanished is closed by the system's timers. Above it, what the
            // reader writes for one message leaves in one system call (SocketWrites).
            let socket = try await channel.eventLoop.submit {
                let lingering = LingeringClose()
                try channel.pipeline.syncOperations.addHandler(lingering, position: .first)
                try PeerTimeout.apply(peerTimeout, to: channel)
                return try SocketWrites(channel, batchingAfter: lingering)
            }.get()
            let handshake = Handshake(headers: request.headerFields, query: query, tokenCookie: configuration.tokenCookie)
            let origin = request.headerFields[.origin]
            guard origins.allows(request.headerFields, authority: request.authority, peer: channel.remoteAddress?.ipAddress) else {
                // A declined upgrade can only be answered with a bare 400 here; a close
                // with a reason tells the page's developer what to change. Nothing is read.
                let reason = "origin \(origin ?? "") may not open this bridge; see --allow-origin"
                return Self.refusal(handshake, nil, close: .policyViolation, reason: reason)
            }
            if handshake.sessionInURL != nil, !configuration.allowSessionInURL {
                return Self.refusal(
                    handshake, .sessionInURL, close: .policyViolation, reason: "name the session in Sec-WebSocket-Protocol, not the URL")
            }
            var user: AuthenticatedUser?
            if let authenticator = configuration.authenticator {
                let outcome: Result<AuthenticatedUser, AuthFailure> =
                    if let token = handshake.token { await authenticator.verify(token) } else {
                        .failure(.missing(cookie: configuration.tokenCookie))
                    }
                switch outcome {
                case .success(let verified): user = verified
                case .failure(let failure):
                    logger.info("handshake refused: \(failure.message)")
                    registry.metrics.error("BRIDGE_UNAUTHENTICATED")
                    return Self.refusal(
                        handshake, .unauthenticated(failure.message), close: BridgeCloseCode.unauthenticated, reason: failure.message)
                }
            }
            let session = handshake.session ?? (configuration.allowSessionInURL ? handshake.sessionInURL : nil)
            // A trusted proxy may name a new session (nginx: its random $request_id, which
            // it routed this connection by), so that rejoins hash to this same bridge.
            let peer = channel.remoteAddress?.ipAddress
            let proposed = origins.trusts(peer: peer) ? request.headerFields[Self.newSessionID] : nil
            let signedIn = user
            return .upgrade(handshake.responseHeaders) { inbound, outbound, _ in
                // Dropping closes the socket itself: a write stuck on a peer that reads
                // nothing cannot end otherwise (the close handshake would be stuck too).
                await handler.serve(
                    inbound: inbound, outbound: outbound, requestedSession: session, proposedSession: proposed, user: signedIn,
                    eventLoop: onEventLoops ? channel.eventLoop : nil, socket: socket
                ) {
                    channel.close(mode: .all, promise: nil)
                }
            }
        }
        let app = Application(
            responder: CallbackResponder<PeerRequestContext> { request, context in
                let response = self.respond(to: request, peer: context.remoteAddress?.ipAddress)
                logger.info("\(request.method) \(request.uri.path) \(response.status.code)")
                return response
            },
            server: upgrade,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                origins.listening(on: port)
                let shown = host.contains(":") ? "[\(host)]" : (OriginPolicy.isWildcard(host) ? "127.0.0.1" : host)
                onListening("http://\(shown):\(port)/")
            },
            logger: logger)
        let shutdown = BridgeShutdown(registry: registry, grace: configuration.shutdownGrace, onStuck: onStuck)
        // Services stop in reverse order: the bridge closes its sockets with a reason
        // first, then the HTTP server stops.
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: app), .init(service: shutdown)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The HTTP side: the web client, the manifest, the pages.
    private func respond(to request: Request, peer: String?) -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.text(.methodNotAllowed, "only GET and HEAD are served here\n")
        }
        let path = Substring(request.uri.path)
        switch path {
        case "/ws":
            if !origins.allows(request.headers, authority: request.head.authority, peer: peer) {
                return Self.text(
                    .forbidden,
                    "this origin may not open the bridge's WebSocket; allowed: \(origins.allowedOrigins.joined(separator: ", ")) (add others with --allow-origin)\n"
                )
            }
            return Self.text(
                .init(code: 426, reasonPhrase: "Upgrade Required"), "/ws is the bridge's WebSocket: open it with a WebSocket client\n")
        case "/healthz":
            // Ready only while the session store answers: a proxy sends nobody to a bridge
            // that could not journal their inputs (docs/deploy.md).
            let ready = registry.store?.isReady() ?? true
            return Self.text(ready ? .ok : .serviceUnavailable, ready ? "ready\n" : "the session store does not answer\n")
        case "/metrics":
            guard let metricsText = configuration.metricsText else { break }
            registry.refreshGauges()
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metricsText())))
        case "/manifest.json":
            guard let json = try? registry.manifestJSON() else {
                return Self.text(.internalServerError, "the library's manifest could not be read\n")
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: json)))
        case "/fusionkit.js", "/fusionkit.d.ts":
            if let response = client?.response(for: request) { return response }
        case _ where path.hasPrefix("/fusionkit/"):
            // The client's modules (bindings/web/fusionkit/), which fusionkit.js imports.
            if let response = client?.response(for: request) { return response }
        default:
            if let response = pages?.response(for: request) { return response }
        }
        return Self.text(.notFound, "not found\n")
    }

    private static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// An accepted upgrade that only says why it is refused, then closes: a browser sees
    /// the close's code and reason (a declined upgrade would be a bare failure). Nothing
    /// is read from it.
    static func refusal(
        _ handshake: Handshake, _ error: BridgeError?, close code: WebSocketErrorCode, reason: String
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        .upgrade(handshake.responseHeaders) { _, outbound, _ in
            if let error { try? await outbound.write(.text(ServerMessage.error(re: nil, error))) }
            // A close reason is at most 123 bytes.
            try? await outbound.close(code, reason: String(decoding: reason.utf8.prefix(120), as: UTF8.self))
        }
    }

    static let newSessionID = HTTPField.Name("X-Fusion-New-Session")!

    static func split(_ target: String) -> (path: Substring, query: Substring) {
        guard let mark = target.firstIndex(of: "?") else { return (Substring(target), "") }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    static func queryValue(_ name: String, in query: Substring) -> Substring? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.first == Substring(name) { return parts.count > 1 ? parts[1] : "" }
        }
        return nil
    }
}

/// Waits for the signal to stop, then closes every socket with a reason and destroys
/// every instance, before the HTTP server itself stops.
struct BridgeShutdown: Service {
    let registry: SessionRegistry
    let grace: Duration
    let onStuck: (@Sendable () -> Void)?

    func run() async throws {
        try? await gracefulShutdown()
        registry.shutdown(reason: "server shutting down")
        registry.store?.close()
        if let onStuck {
            Task.detached { [registry] in
                // From the moment the last WebSocket ended (a page that does not answer its
                // close is dropped after `closeAnswerTime`): timed from the signal, a busy
                // host's late drop read as a stuck server.
                await registry.connectionsEnded(within: BridgeConnection.closeAnswerTime + .seconds(1))
                try? await Task.sleep(for: .milliseconds(1500))
                onStuck()
            }
        }
        // The grace: the writers put the close frames on the wire, and connections
        // arriving now are told the server is shutting down (the HTTP server stops after).
        try? await Task.sleep(for: grace)
    }
}
