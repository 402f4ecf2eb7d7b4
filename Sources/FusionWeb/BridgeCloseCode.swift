import NIOWebSocket

/// The bridge's own WebSocket close codes (docs/web-protocol.md, "Closing"), beside the
/// standard ones it uses (1001, 1008, 1009, 1013).
enum BridgeCloseCode {
    /// The session is live on another bridge now (hand-over, or this bridge was fenced
    /// off it): reconnect at once with the same session id, and the proxy's hash, or the
    /// session store, brings the client to the bridge that holds it.
    static let sessionMoved = WebSocketErrorCode(codeNumber: 4000)
    /// The bridge does not know who is at the other end (`--auth`): no token, one that
    /// does not verify, or one that expired while connected. Sign in again, then connect;
    /// reconnecting with the same token is refused again.
    static let unauthenticated = WebSocketErrorCode(codeNumber: 4001)
}
