import NIOHTTP1
import Testing

@testable import FusionWeb

/// UpgradeRequest tells the requests NIO's upgrade handler would lose from the ones it
/// answers. Tests/web's test_request_head.py sends them to a real bridge.
@Suite struct UpgradeRequestTests {
    private let key = ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
    private let version = ("Sec-WebSocket-Version", "13")

    private func read(_ fields: [(String, String)]) -> UpgradeRequest {
        UpgradeRequest(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/ws", headers: HTTPHeaders(fields)))
    }

    @Test func aRequestWithoutUpgradeIsOrdinary() {
        #expect(read([("Host", "x"), ("Connection", "keep-alive")]) == .none)
    }

    @Test func aWholeHandshakeIsAWebSocketWhateverTheCase() {
        #expect(read([("Upgrade", "websocket"), ("Connection", "Upgrade"), key, version]) == .webSocket)
        #expect(read([("upgrade", "WebSocket"), key, version]) == .webSocket)
        // Among other protocols, WebSocket is the one taken.
        #expect(read([("Upgrade", "h2c, websocket"), key, version]) == .webSocket)
    }

    @Test func anotherProtocolIsIgnored() {
        #expect(read([("Upgrade", "h2c"), ("Connection", "Upgrade, HTTP2-Settings")]) == .otherProtocol)
        #expect(read([("Upgrade", "websocket/13"), key, version]) == .otherProtocol)
        #expect(read([("Upgrade", "")]) == .otherProtocol)
    }

    @Test func aHandshakeWithoutOneKeyIsABadRequest() {
        for fields in [[("Upgrade", "websocket"), version], [("Upgrade", "websocket"), key, key, version]] {
            guard case .brokenWebSocket(let status, let reason) = read(fields) else {
                Issue.record("\(fields) was not refused")
                continue
            }
            #expect(status == .badRequest)
            #expect(reason.contains("exactly one Sec-WebSocket-Key"))
        }
    }

    @Test func anotherVersionIsUpgradeRequired() {
        for (fields, asked) in [
            ([("Upgrade", "websocket"), key, ("Sec-WebSocket-Version", "8")], "8"),
            ([("Upgrade", "websocket"), key], "none"),
            ([("Upgrade", "websocket"), key, version, version], "13, 13")
        ] {
            guard case .brokenWebSocket(let status, let reason) = read(fields) else {
                Issue.record("\(fields) was not refused")
                continue
            }
            #expect(status == .upgradeRequired)
            #expect(reason.hasSuffix("asked for \(asked)"))
        }
    }
}
