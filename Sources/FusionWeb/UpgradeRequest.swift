import NIOHTTP1

/// What a request's `Upgrade` header asks of the bridge, read before NIO's upgrade handler
/// sees the request (`RequestHeadGuard`).
///
/// NIO's handler loses a request that names a protocol no upgrader takes (`h2c`, `foo`) or
/// a WebSocket handshake its upgrader cannot answer (no `Sec-WebSocket-Key`, two of them,
/// a version other than 13): it keeps neither the head nor the end while it looks for an
/// upgrader, so when none is found the HTTP side reads nothing, answers nothing, and the
/// connection closes. The guard settles those requests first, as RFC 9110 7.8 and RFC
/// 6455 4.2 say a server may and must: another protocol is ignored and the request served,
/// a broken handshake is refused with a status saying why.
enum UpgradeRequest: Equatable {
    /// No `Upgrade` header: an ordinary request.
    case none
    /// A WebSocket handshake NIO's upgrader answers (the bridge's own checks come after).
    case webSocket
    /// Asks for protocols the bridge does not speak: the `Upgrade` is ignored, and the
    /// request is served and its connection closed (the parser reads no further request
    /// after one that asked to upgrade).
    case otherProtocol
    /// Asks for a WebSocket without what the handshake needs: refused with `status`,
    /// `reason` in its body (426 carries `Sec-WebSocket-Version: 13`, RFC 6455 4.4).
    case brokenWebSocket(status: HTTPResponseStatus, reason: String)

    /// The WebSocket version the bridge speaks (RFC 6455 4.1).
    static let webSocketVersion = "13"

    init(_ head: HTTPRequestHead) {
        // An empty `Upgrade` names no protocol, but the parser still stops after the
        // request (with `Connection: upgrade`), so it is another protocol too.
        guard head.headers.contains(name: "upgrade") else {
            self = .none
            return
        }
        let protocols = head.headers[canonicalForm: "upgrade"]
        // NIO looks its upgraders up by the protocol's name, lowercased; "websocket/13" is
        // another protocol to it.
        guard protocols.contains(where: { $0.lowercased() == "websocket" }) else {
            self = .otherProtocol
            return
        }
        // The upgrader's own checks: each header exactly once (a list is refused), version 13.
        let keys = head.headers[canonicalForm: "sec-websocket-key"]
        let versions = head.headers[canonicalForm: "sec-websocket-version"]
        if keys.count != 1 {
            self = .brokenWebSocket(
                status: .badRequest,
                reason: "a WebSocket handshake needs exactly one Sec-WebSocket-Key (RFC 6455 4.1); it had \(keys.count)")
        } else if versions.count != 1 || versions[0] != Substring(Self.webSocketVersion) {
            self = .brokenWebSocket(
                status: .upgradeRequired,
                reason: "this bridge speaks WebSocket version \(Self.webSocketVersion) (RFC 6455 4.4); "
                    + "the handshake asked for \(versions.isEmpty ? "none" : versions.joined(separator: ", "))")
        } else {
            self = .webSocket
        }
    }
}
