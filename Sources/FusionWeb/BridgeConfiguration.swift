import FusionAuth
import FusionHost

/// How `fusion serve` runs: where it listens, what it serves, and the limits that keep
/// one page (or a thousand) from taking the process down. Every limit has a default
/// and a flag; docs/web-protocol.md says what exceeding each one does.
public struct BridgeConfiguration: Sendable {
    /// The address to bind; loopback unless told otherwise.
    public var host = "127.0.0.1"
    /// The port; 0 asks the system for a free one (the URL printed says which).
    public var port = 8080
    /// The pages served at `/` (the demo pages of examples/web by default).
    public var staticFolder: String
    /// Where `fusionkit.js` and `fusionkit.d.ts` are served from (bindings/web).
    public var clientFolder: String
    /// Origins besides the server's own whose pages may open the WebSocket.
    public var allowedOrigins: [String] = []
    /// The origins users load the pages from when a proxy is in front (`--public-origin`):
    /// allowed like `allowedOrigins`, and named as the bridge's own in docs/deploy.md.
    public var publicOrigins: [String] = []
    /// Peers (IP addresses) whose `X-Forwarded-Host` and `X-Forwarded-Proto` are believed
    /// when checking a handshake's Origin (`--trusted-proxy`); from others they are ignored.
    public var trustedProxies: [String] = []

    /// Verifies the tokens of signed-in users (`--auth jwt`); nil: anyone who reaches the
    /// bridge may use it (loopback, or `--no-auth`).
    public var authenticator: TokenVerifier?
    /// The cookie the token comes in (`--jwt-cookie`).
    public var tokenCookie = "fusion_token"
    /// Whether `/ws?session=ID` is still taken (`--allow-session-in-url`): unsafe, every
    /// access log on the way keeps the id.
    public var allowSessionInURL = false
    /// Sessions one signed-in user may have on this bridge at once.
    public var maxSessionsPerUser = 16
    /// Instances one signed-in user may have on this bridge, all sessions together.
    public var maxInstancesPerUser = 64
    /// Messages one signed-in user's connections may send per second together.
    public var maxMessagesPerUser = 200

    /// Sessions alive at once, connected or waiting to be rejoined.
    public var maxSessions = 1000
    /// Instances one session may hold.
    public var maxInstancesPerSession = 16
    /// The largest client message read; larger ones get an error and are dropped. A
    /// single frame over four times this closes the connection (code 1009).
    public var maxMessageBytes = 64 * 1024
    /// Messages one connection may send per second (also the burst allowed).
    public var maxMessagesPerSecond = 100
    /// How long a session outlives its last connection, so that a reload rejoins it.
    public var sessionTimeout: Duration = .seconds(60)
    /// How often each WebSocket carries a heartbeat (an unsolicited pong) when it has been
    /// quiet: a proxy in front (deploy/nginx.conf's `proxy_read_timeout`) then tells a
    /// frozen bridge from an idle page. nil: none.
    public var heartbeat: Duration? = .seconds(2)
    /// How long a WebSocket may go with what the bridge sent unacknowledged by the page's
    /// machine (the heartbeats are enough), or with no heartbeats, without an answer to the
    /// system's keep-alive probes, before the bridge closes it: a page whose machine
    /// vanished (its network cut, its laptop closed) does not hold its connection, and its
    /// session's timeout starts. The system's TCP timers do it (`TCP_USER_TIMEOUT`,
    /// keep-alive), with no task per connection.
    public var peerTimeout: Duration = .seconds(30)
    /// How long a stopping bridge keeps answering after it closed every socket: a
    /// connection arriving meanwhile is told `BRIDGE_SHUTTING_DOWN` and closed with 1001
    /// (so a client behind a load balancer reconnects elsewhere) instead of refused.
    public var shutdownGrace: Duration = .milliseconds(100)
    /// Where each instance's crash journal is kept (one folder per session), so that a
    /// restarted bridge resumes the sessions a crash cut short; nil: no journals.
    public var journalFolder: String?
    /// How journal records reach the disk: `group` (the default) lets the records of
    /// every session written during one sync share the next one; `each` syncs every
    /// record on its own, as a single-session journal does. Either way no input is
    /// acknowledged before its record is on the disk (docs/reliability.md, "Group commit").
    public var journalSync = JournalSync.group
    /// A store of sessions that several bridges share (`--journal postgres://…`): used in
    /// place of `journalFolder`, and any bridge takes over any session from it.
    public var sessionStore: (any SessionStore)?
    /// How a session whose last holder may have died of one of its inputs is replayed in a
    /// child process first (`PoisonCheck`); nil: not checked.
    public var poisonCheck: PoisonCheck?
    /// The metrics in Prometheus' text format, served at `/metrics`; nil: not served.
    public var metricsText: (@Sendable () -> String)?

    public enum JournalSync: String, Sendable, CaseIterable {
        case group, each
    }

    public init(staticFolder: String, clientFolder: String) {
        self.staticFolder = staticFolder
        self.clientFolder = clientFolder
    }

    /// Whether `host` is a loopback address, which only this machine reaches.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }

    /// The frame size at which the WebSocket layer gives up on a connection.
    var hardFrameLimit: Int { maxMessageBytes * 4 }
}
