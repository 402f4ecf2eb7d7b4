import FusionHost

/// Why the bridge refused a client message: a status name and words a person can act
/// on. Library refusals keep the library's own status name (`FK_ERR_UNKNOWN_INPUT`) and
/// message; the bridge's own are `BRIDGE_…` (docs/web-protocol.md lists them).
public struct BridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: String
    public var message: String

    public init(status: String, message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status): \(message)" }

    /// The session is live on another bridge now: never sent, the socket is closed with
    /// `BridgeCloseCode.sessionMoved` instead, so the client rejoins it there.
    static let sessionMoved = BridgeError(status: "BRIDGE_SESSION_MOVED", message: "the session moved to another bridge")
    /// A journal write went out and got no answer: it may land yet, so this copy of the
    /// session cannot tell what its journal holds. Never sent: the session is let go
    /// (its sockets closed with `BridgeCloseCode.sessionMoved`), and the copy the client
    /// rejoins is read back from the journal once the epoch has moved past the write.
    static let journalUncertain = BridgeError(
        status: "BRIDGE_JOURNAL_UNCERTAIN", message: "a journal write got no answer; the session is read back from the journal")

    /// Whether the feature refused the input (a library status): done, as the journal sees it.
    var isLibraryRefusal: Bool { status.hasPrefix("FK_") }
    /// A message id whose input was put away as poison, sent again. `sandboxed`: the
    /// library is a sandboxed plugin, whose faults fail a call, never kill a bridge.
    static func poisonInput(_ message: String, sandboxed: Bool) -> BridgeError {
        BridgeError(
            status: "BRIDGE_POISON_INPUT",
            message:
                "the input of message \(message) \(poisonCause(sandboxed)); it was not applied, and the session goes on from the state before it"
        )
    }
    /// What a poison input did, in words: a trap kills a native library's bridge; a
    /// sandboxed plugin's fault fails the call.
    static func poisonCause(_ sandboxed: Bool) -> String {
        sandboxed
            ? "made the sandboxed plugin fail (it trapped or ran past its limits)"
            : "killed the bridge that applied it (the feature trapped)"
    }
    /// An input (or answer, or clock move) on which a sandboxed plugin trapped or ran out of
    /// its limits: refused with the poison status at once, no replay in a child needed.
    static func pluginFault(_ failure: FusionHostError) -> BridgeError {
        let said: String
        if case .failed(let call) = failure { said = "\(call.statusName): \(call.message)" } else { said = failure.description }
        return BridgeError(
            status: "BRIDGE_POISON_INPUT",
            message: "the sandboxed plugin failed on it (\(said)); it was not applied, and the session goes on from the state before it")
    }
    static func malformed(_ message: String) -> BridgeError { BridgeError(status: "BRIDGE_MALFORMED_MESSAGE", message: message) }
    static func unknownInstance(_ id: String) -> BridgeError {
        BridgeError(status: "BRIDGE_UNKNOWN_INSTANCE", message: "no instance \"\(id)\" in this session")
    }
    static func keyTaken(_ message: String) -> BridgeError { BridgeError(status: "BRIDGE_KEY_TAKEN", message: message) }
    static func tooLarge(size: Int, limit: Int) -> BridgeError {
        BridgeError(
            status: "BRIDGE_MESSAGE_TOO_LARGE",
            message: "a message of \(size) bytes is over the limit of \(limit) bytes (--max-message-bytes); it was dropped")
    }
    static func rateLimited(limit: Int) -> BridgeError {
        BridgeError(
            status: "BRIDGE_RATE_LIMITED",
            message: "more than \(limit) messages per second on this connection (--max-messages-per-second); the message was dropped")
    }
    static func instanceLimit(_ limit: Int) -> BridgeError {
        BridgeError(
            status: "BRIDGE_INSTANCE_LIMIT",
            message: "this session has \(limit) instances already (--max-instances-per-session); destroy one first")
    }
    static func unauthenticated(_ message: String) -> BridgeError { BridgeError(status: "BRIDGE_UNAUTHENTICATED", message: message) }
    static let sessionInURL = BridgeError(
        status: "BRIDGE_SESSION_IN_URL",
        message:
            "name the session in Sec-WebSocket-Protocol (fusion, fusion.session.ID), not in the URL: URLs are written to access logs (docs/web-protocol.md)"
    )
    static func userLimit(_ what: String, _ limit: Int, flag: String) -> BridgeError {
        BridgeError(
            status: "BRIDGE_USER_LIMIT",
            message:
                "you have \(limit) \(what) already (\(flag)); \(what == "sessions" ? "close a tab, or wait for one to expire" : "destroy one first")"
        )
    }
    static func userRateLimited(limit: Int) -> BridgeError {
        BridgeError(
            status: "BRIDGE_USER_LIMIT",
            message:
                "more than \(limit) messages per second from your connections together (--max-messages-per-user); the message was dropped")
    }
    static let userOption = BridgeError(
        status: "BRIDGE_MALFORMED_MESSAGE",
        message: "the option \"user\" is the bridge's to set, from the signed-in user's token; leave it out")
    static let shuttingDown = BridgeError(status: "BRIDGE_SHUTTING_DOWN", message: "the server is shutting down; connect again in a moment")
    static func sessionLimit(_ limit: Int) -> BridgeError {
        BridgeError(status: "BRIDGE_SESSION_LIMIT", message: "the server has \(limit) sessions already (--max-sessions); try again later")
    }

    /// A refusal from the library, in its own words; a host failure (an entry point the
    /// library lacks) in the host's.
    init(_ error: FusionHostError) {
        switch error {
        case .failed(let failure):
            self.init(status: failure.statusName, message: failure.message)
        case .missingEntryPoint:
            self.init(status: "BRIDGE_UNSUPPORTED", message: error.description)
        default:
            self.init(status: "BRIDGE_HOST_FAILURE", message: error.description)
        }
    }
}
