import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import FusionWeb

/// RequestHeadGuard behind NIO's own HTTP parser, on an embedded channel whose clock the
/// test moves: the request head's limits (docs/security.md, "Requests at the edge")
/// without waiting ten seconds of real time. Tests/web/test_request_head.py checks the
/// same over real sockets.
@Suite struct RequestHeadGuardTests {
    /// The parser and encoder as the bridge's pipeline has them, then the guard.
    private func connected() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = RequestHeadGuard.maxHeadBytes
        limits.maxHeaderListSize = RequestHeadGuard.maxHeadBytes
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(HTTPResponseEncoder())
        try operations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(limitConfiguration: limits)))
        try operations.addHandler(RequestHeadGuard())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    private func send(_ text: String, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(channel.allocator.buffer(string: text))
    }

    /// What the server wrote, as text.
    private func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(let buffer) = data { text += String(buffer: buffer) }
        }
        return text
    }

    private func advance(_ channel: EmbeddedChannel, seconds: Double) {
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(Int64(seconds * 1e9)))
    }

    @Test func aHeadPastTheLimitIsAnswered431AndClosed() throws {
        let channel = try connected()
        let value = String(repeating: "b", count: RequestHeadGuard.maxHeadBytes)
        try send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(value)\r\n\r\n", to: channel)
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(answer)")
        #expect(answer.lowercased().contains("connection: close"))
        // What still arrives is dropped, unanswered, until the linger ends the connection.
        try send("more of the same\r\n", to: channel)
        #expect(try written(channel).isEmpty)
        advance(channel, seconds: 2)
        #expect(!channel.isActive)
    }

    @Test func aHeadWithinTheLimitGoesThrough() throws {
        let channel = try connected()
        let value = String(repeating: "b", count: RequestHeadGuard.maxHeadBytes - 1024)
        try send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(value)\r\n\r\n", to: channel)
        guard case .head(let head) = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("no request head")
            return
        }
        #expect(head.uri == "/")
        #expect(try written(channel).isEmpty)
    }

    @Test func aRequestThatIsNotHTTPIsAnswered400() throws {
        let channel = try connected()
        try send("HELLO THERE\r\n\r\n", to: channel)
        #expect(try written(channel).hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        advance(channel, seconds: 2)
        #expect(!channel.isActive)
    }

    @Test func aHeadNotFinishedInTimeIsClosedUnanswered() throws {
        let channel = try connected()
        try send("GET / HTTP/1.1\r\nHost: x\r\n", to: channel)
        for _ in 0..<9 {
            advance(channel, seconds: 1)
            try send("X-a: b\r\n", to: channel)  // bytes keep coming, a head never does
        }
        #expect(channel.isActive)
        #expect(try written(channel).isEmpty)
        advance(channel, seconds: 1)
        #expect(!channel.isActive)  // closed unanswered
    }

    @Test func aRequestStopsTheClockAndItsResponseStartsItAgain() throws {
        let channel = try connected()
        try send("GET / HTTP/1.1\r\nHost: x\r\n\r\n", to: channel)
        advance(channel, seconds: 60)  // a slow answer is the server's own business
        #expect(channel.isActive)
        try channel.writeOutbound(HTTPServerResponsePart.head(.init(version: .http1_1, status: .ok, headers: ["Content-Length": "0"])))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        advance(channel, seconds: 9.9)
        #expect(channel.isActive)
        advance(channel, seconds: 0.2)  // kept alive but idle: the next head is due as the first was
        #expect(!channel.isActive)
    }

    @Test func aWebSocketUpgradeTakesTheGuardOut() throws {
        let channel = try connected()
        try send(
            "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", to: channel)
        try channel.writeOutbound(HTTPServerResponsePart.head(.init(version: .http1_1, status: .switchingProtocols)))
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: RequestHeadGuard.self) }
        #expect(try written(channel).hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        advance(channel, seconds: 60)
        #expect(channel.isActive)
    }

    @Test func aBrokenHandshakeIsAnsweredAndClosed() throws {
        let channel = try connected()
        try send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", to: channel)
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(answer.contains("exactly one Sec-WebSocket-Key"))
        // Nothing of it reached the handlers after the guard.
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)
    }
}
