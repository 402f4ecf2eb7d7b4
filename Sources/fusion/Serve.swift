import ArgumentParser
import FusionHost
import FusionJournalPostgres
import FusionWeb
import Logging
import Metrics
import Prometheus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion serve [LIB…]`: the web bridge. Serves the web client and the demo pages, and
/// one WebSocket through which pages drive the features of the libraries given.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the features of one or several libraries to the browser: pages, the web client, one WebSocket.",
        usage: "fusion serve [LIB…] [--host 127.0.0.1] [--port 8080] [--static DIR]",
        discussion: """
            Open the URL it prints. The index page lists every library's features, with the \
            demo page of each example feature and a generic page for any feature of any \
            library. Several libraries are served side by side, as fusion run loads them: a \
            feature two of them have is created by its qualified name (Chores/counter). Pages import the client module from /fusionkit.js and speak the \
            protocol of docs/web-protocol.md. Each tab gets its own session; a reload \
            rejoins it. Ctrl-C (or SIGTERM) closes every socket with a reason and destroys \
            every instance.

            It binds to loopback unless --host says otherwise, and accepts WebSocket \
            handshakes only from its own pages' origin (and --allow-origin). Another \
            address needs --auth jwt (signed-in users only) or --no-auth (anyone); \
            docs/security.md says who may drive which session.

            \(Fusion.libraryHelp)

            \(ExitStatus.pointer)
            """)

    @Argument(help: ArgumentHelp("The libraries (optional; several are served side by side).", valueName: "lib"))
    var words: [String] = []

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    @Option(
        name: .customLong("static"),
        help: ArgumentHelp("The folder of pages served at / (default: the checkout's examples/web).", valueName: "dir"))
    var staticFolder: String?

    @Option(
        name: .customLong("allow-origin"),
        help: ArgumentHelp(
            "Another origin whose pages may open the WebSocket, e.g. http://localhost:3000 (repeatable).", valueName: "origin"))
    var allowedOrigins: [String] = []

    @Option(
        name: .customLong("public-origin"),
        help: ArgumentHelp(
            "The origin users load the pages from when a proxy is in front, e.g. https://app.example.com (repeatable).",
            valueName: "origin"))
    var publicOrigins: [String] = []

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "An address (e.g. 127.0.0.1) whose X-Forwarded-Host and X-Forwarded-Proto say the page's origin; ignored from any other peer (repeatable).",
            valueName: "address"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("max-sessions"), help: "Sessions alive at once.")
    var maxSessions = 1000

    @Option(name: .customLong("max-instances-per-session"), help: "Instances one session may hold.")
    var maxInstancesPerSession = 16

    @Option(name: .customLong("max-message-bytes"), help: "The largest message a page may send.")
    var maxMessageBytes = 64 * 1024

    @Option(name: .customLong("max-messages-per-second"), help: "Messages one connection may send per second.")
    var maxMessagesPerSecond = 100

    @Option(name: .customLong("session-timeout"), help: "Seconds a session outlives its last connection (for reloads).")
    var sessionTimeout: Double = 60

    @Option(
        name: .customLong("heartbeat"),
        help:
            "The longest a WebSocket goes without carrying anything, in seconds: one that carried nothing else for that long gets a heartbeat (an unsolicited pong), so that a proxy tells a frozen bridge from an idle page; 0: none."
    )
    var heartbeat: Double = 2

    @Option(
        name: .customLong("peer-timeout"),
        help: ArgumentHelp(
            "Seconds a WebSocket may go with what the bridge sent unacknowledged by the page's machine (or, with --heartbeat 0, without answering keep-alive probes) before it is closed: a vanished page does not hold its session.",
            valueName: "seconds"))
    var peerTimeout: Double = 30

    @Option(
        name: .customLong("lease"),
        help: ArgumentHelp(
            "With --journal postgres://…: seconds the bridge holds its sessions without hearing from the database. The database lets a silent bridge's sessions go after this long, and the bridge gives them up a quarter of it sooner (docs/deploy.md, \"Liveness and fencing\").",
            valueName: "seconds"))
    var lease: Double = 4

    @Option(
        name: .customLong("journal"),
        help: ArgumentHelp(
            "Keep a crash journal of every instance: in this folder (a folder per session; started again with it after a crash, the bridge resumes those sessions), or in PostgreSQL (postgres://USER@HOST:PORT/DB), shared by several bridges, any of which takes over any session (docs/deploy.md).",
            valueName: "dir|postgres-url"))
    var journalFolder: String?

    @Option(
        name: .customLong("journal-sync"),
        help: ArgumentHelp(
            "How --journal's records reach the disk: group (records of all sessions written during one sync share the next) or each (a sync per record). Either way no input is acknowledged before it is on the disk.",
            valueName: "group|each"))
    var journalSync = BridgeConfiguration.JournalSync.group

    @Option(
        name: .customLong("shutdown-grace"),
        help: ArgumentHelp(
            "Seconds a stopping bridge keeps telling new connections it is shutting down (BRIDGE_SHUTTING_DOWN, close 1001).",
            valueName: "seconds"))
    var shutdownGrace: Double = 0.1

    // ArgumentParser prints a group title in capitals: the title names no file (the
    // discussion cites docs/security.md).
    @OptionGroup(title: "Who may connect")
    var auth: AuthOptions

    @Flag(help: "Log each connection and HTTP request on stderr.")
    var verbose = false

    func validate() throws {
        let rest = LibraryChoice.split(words).rest
        if !rest.isEmpty {
            throw ValidationError(
                "serve takes no feature: it serves every feature of the libraries (unexpected \(rest.joined(separator: " ")))")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port is from 0 to 65535") }
        for (name, value) in [
            ("--max-sessions", maxSessions), ("--max-instances-per-session", maxInstancesPerSession),
            ("--max-message-bytes", maxMessageBytes), ("--max-messages-per-second", maxMessagesPerSecond)
        ] where value < 1 {
            throw ValidationError("\(name) is at least 1")
        }
        let database = try? PostgresAddress(journalFolder ?? "")
        if journalSync != .group, journalFolder == nil || database != nil {
            throw ValidationError("--journal-sync is for --journal DIR")
        }
        do { _ = try PostgresAddress(journalFolder ?? "") } catch { throw ValidationError("--journal \(error)") }
        guard sessionTimeout >= 0, sessionTimeout <= 86_400 else { throw ValidationError("--session-timeout is 0 to 86400 seconds") }
        guard heartbeat >= 0, heartbeat <= 3600 else { throw ValidationError("--heartbeat is 0 to 3600 seconds") }
        guard peerTimeout >= 1, peerTimeout <= 3600 else { throw ValidationError("--peer-timeout is 1 to 3600 seconds") }
        guard lease >= 1, lease <= 3600 else { throw ValidationError("--lease is 1 to 3600 seconds") }
        guard shutdownGrace >= 0, shutdownGrace <= 600 else { throw ValidationError("--shutdown-grace is 0 to 600 seconds") }
        guard maxMessageBytes <= 64 << 20 else { throw ValidationError("--max-message-bytes is at most 67108864 (64 MiB)") }
        try auth.validate(host: host)
    }

    @OptionGroup(title: "Sandboxed plugins")
    var plugin: PluginLimitOptions

    func run() async throws {
        let libraries = try LibraryChoice.load(LibraryChoice.split(words).libraries, limits: plugin.limits)
        // Before anything (the sign-in's key fetch, PostgreSQL) starts NIO's event loops.
        let database = try PostgresAddress(journalFolder ?? "", environment: Self.passwordEnvironment)
        WebBridge.suggestEventLoopCount(
            libraries: libraries, journal: .init(sharedStore: database != nil, journalFolder: journalFolder != nil, sync: journalSync))
        let checkout = WebFolders.checkout()
        guard let pages = staticFolder ?? checkout.map({ $0 + "/" + WebFolders.pagesFolder }) else {
            throw CLIError(
                .usage,
                "no pages to serve: pass --static DIR (none given, and no FusionKit checkout found around the fusion executable or here)")
        }
        guard WebFolders.isFolder(pages) else { throw CLIError(.usage, "--static \(pages): not a folder") }
        var configuration = BridgeConfiguration(
            staticFolder: pages, clientFolder: checkout.map { $0 + "/" + WebFolders.clientFolder } ?? pages)
        configuration.host = host
        configuration.port = port
        configuration.allowedOrigins = allowedOrigins
        configuration.publicOrigins = publicOrigins
        configuration.trustedProxies = trustedProxies
        configuration.maxSessions = maxSessions
        configuration.maxInstancesPerSession = maxInstancesPerSession
        configuration.maxMessageBytes = maxMessageBytes
        configuration.maxMessagesPerSecond = maxMessagesPerSecond
        configuration.sessionTimeout = .milliseconds(Int64((sessionTimeout * 1000).rounded()))
        configuration.heartbeat = heartbeat > 0 ? .milliseconds(Int64((heartbeat * 1000).rounded())) : nil
        configuration.peerTimeout = .milliseconds(Int64((peerTimeout * 1000).rounded()))
        configuration.shutdownGrace = .milliseconds(Int64((shutdownGrace * 1000).rounded()))
        try await auth.apply(to: &configuration)
        if let authenticator = configuration.authenticator {
            Terminal.write("Signed-in users only: tokens verified with \(authenticator.description).\n", to: STDERR_FILENO)
        } else if auth.noAuth {
            Terminal.write(
                "warning: --no-auth: anyone who reaches \(host):\(port) can open sessions and drive every feature (docs/security.md)\n",
                to: STDERR_FILENO)
        }
        if auth.allowSessionInURL {
            Terminal.write(
                "warning: --allow-session-in-url: session ids in URLs end up in access logs (docs/security.md)\n", to: STDERR_FILENO)
        }
        if journalFolder != nil, let database {
            do throws(JournalError) {
                configuration.sessionStore = try PostgresSessionStore(
                    address: database, holder: Self.holderName(port: port), lease: .milliseconds(Int64((lease * 1000).rounded())))
            } catch {
                throw CLIError(.journal, "--journal \(database): \(error.reason)")
            }
        } else if let journalFolder {
            guard mkdir(journalFolder, 0o755) == 0 || errno == EEXIST, WebFolders.isFolder(journalFolder) else {
                throw CLIError(.usage, "--journal \(journalFolder): not a folder, and it cannot be made one")
            }
            configuration.journalFolder = journalFolder
            configuration.journalSync = journalSync
        }
        // A session whose holder may have died of one of its inputs is replayed first in a
        // child process, this same program (`fusion replay-check`).
        configuration.poisonCheck = PoisonCheck(executable: "/proc/self/exe", arguments: ["replay-check"])
        // /metrics in Prometheus' text format (docs/deploy.md, "Metrics").
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))
        configuration.metricsText = { metrics.emitToString() }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)  // stdout is for the URL
        let bridge = WebBridge(libraries: libraries, configuration: configuration)
        let (resumed, problems) = bridge.resumeJournaledSessions()
        for problem in problems { Terminal.write("warning: \(SessionID.redacted(problem))\n", to: STDERR_FILENO) }
        if resumed > 0 {
            Terminal.write(
                "Resumed \(resumed) session\(resumed == 1 ? "" : "s") from the journals in \(journalFolder ?? ""); their tabs rejoin them.\n",
                to: STDERR_FILENO)
        }
        let served = libraries.libraries.map { "\($0.summary.libraryName) \($0.summary.libraryVersion)" }.joined(separator: " and ")
        let features = libraries.libraries.reduce(0) { $0 + $1.summary.features.count }
        do {
            try await bridge.run(
                logLevel: verbose ? .info : .warning,
                onListening: { url in
                    Terminal.write(
                        "Serving \(served) (\(features) features) at \(url)\nOpen it in a browser; Ctrl-C stops.\n",
                        to: STDOUT_FILENO)
                },
                onStuck: {
                    Terminal.write(
                        "Stopped: every socket closed, every instance destroyed (idle connections dropped).\n", to: STDOUT_FILENO)
                    exitProcess(0)
                })
        } catch {
            throw CLIError(.failure, "the web bridge stopped: \(error)")
        }
        if let counts = bridge.journalCounts {
            Terminal.write("Journals: \(counts.records) records put on the disk by \(counts.syncs) syncs.\n", to: STDERR_FILENO)
        }
        Terminal.write("Stopped: every socket closed, every instance destroyed.\n", to: STDOUT_FILENO)
    }
}

extension BridgeConfiguration.JournalSync: ExpressibleByArgument {}

extension Serve {
    /// PGPASSWORD, as libpq reads it, for an address without a password.
    static var passwordEnvironment: [String: String] {
        getenv("PGPASSWORD").map { ["PGPASSWORD": String(cString: $0)] } ?? [:]
    }

    /// Names this bridge in the journal database's `holder` column: host, process, port.
    static func holderName(port: Int) -> String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(host) pid \(getpid()) port \(port)"
    }
}
