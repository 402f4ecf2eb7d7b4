import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Answers what NIO's HTTP parser refuses, and closes connections that never finish a
/// request's head (docs/security.md, "Requests at the edge").
///
/// Hummingbird turns NIO's error handling off and does its own only once a request's head
/// has been read; on the bridge's channel, a parse error before that (headers past the
/// parser's limit, a request line that is not HTTP) went nowhere: the parser stopped and
/// the socket stayed open, unanswered, for as long as the peer liked. So did a peer that
/// sends its headers a byte at a time (slowloris). This handler sits right after the
/// parser:
///
/// - a parse error is answered `431 Request Header Fields Too Large` (headers past
///   `maxHeadBytes`) or `400 Bad Request` (anything else), unless a response is under
///   way, and the connection is closed, lingering so that the peer reads the answer;
/// - a request asking to upgrade to another protocol than WebSocket is served as if it
///   had not asked, and a broken WebSocket handshake refused (`UpgradeRequest`): NIO's
///   upgrade handler would lose either, unanswered;
/// - a connection that has not sent a whole request head within `timeout` of opening, or
///   of its last response (keep-alive, or a body still coming after it), is closed.
///
/// A WebSocket upgrade takes it out of the pipeline with the 101: from there on the
/// socket is a WebSocket's, which has its own limits, and `MaskedFramesOnly` takes its
/// place. Until then it also reads what a client sent in one write with the upgrade
/// request (its first frames): the parser hands those bytes on when the upgrade removes
/// it, and they come here as bytes, not a request's parts (read as parts, they stopped
/// the server).
final class RequestHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The request line's target and the header fields' names and values together, in
    /// bytes: NIO's parser counts these (`maxHeaderListSize`), and 80 KiB is its default.
    static let maxHeadBytes = 80 * 1024
    /// How long a connection may take to send a request's whole head.
    static let timeout: TimeAmount = .seconds(10)
    /// How long a refused connection keeps reading (and dropping) what the peer still
    /// sends, so that its close is a FIN after the answer rather than a reset before it.
    static let linger: TimeAmount = .seconds(2)

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// Requests whose response has not ended yet.
    private var unanswered = 0
    /// A response's head went out, and its end has not.
    private var responding = false
    /// An error was answered: what still arrives is dropped until the close.
    private var refused = false
    /// The 101 of a WebSocket upgrade went by: the next flush takes this handler out.
    private var upgraded = false
    /// A request's head was read, and not yet its end.
    private var inRequest = false
    /// The upgrade was decided (`upgrading`): what follows the request is its frames.
    private var frames: MaskedFramesOnly?
    /// The upgrade request has ended: what arrives now is the WebSocket's bytes.
    private var readingFrames = false
    /// A request that asked for another protocol is being served: its response says the
    /// connection closes after it (RFC 9112 9.6), as it does.
    private var closingAfterResponse = false

    init(timeout: TimeAmount = RequestHeadGuard.timeout) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        if readingFrames, let frames {
            if frames.admit(frames.unwrapInboundIn(data)) { context.fireChannelRead(data) }
            return
        }
        // Passed on as it came, unless its head is rewritten.
        var forwarded = data
        switch unwrapInboundIn(data) {
        case .head(var head):
            disarm()
            switch UpgradeRequest(head) {
            case .none, .webSocket:
                break
            case .otherProtocol:
                // Served as if it had not asked; the parser reads nothing after it.
                head.headers.remove(name: "upgrade")
                head.headers.replaceOrAdd(name: "connection", value: "close")
                forwarded = wrapInboundOut(.head(head))
                closingAfterResponse = true
            case .brokenWebSocket(let status, let reason):
                var headers: HTTPHeaders = [:]
                if status == .upgradeRequired { headers.add(name: "Sec-WebSocket-Version", value: UpgradeRequest.webSocketVersion) }
                refuse(context, status: status, body: reason + "\n", headers: headers)
                return
            }
            unanswered += 1
            inRequest = true
        case .body:
            break
        case .end:
            inRequest = false
            readingFrames = frames != nil
        }
        context.fireChannelRead(forwarded)
    }

    /// The request being read is a WebSocket upgrade the server accepted: once it has
    /// ended, the parser reads no more, and what it hands on is the frames' bytes.
    func upgrading() {
        frames = MaskedFramesOnly()
        readingFrames = !inRequest
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where closingAfterResponse && head.status.code >= 200:
            responding = true
            head.headers.replaceOrAdd(name: "connection", value: "close")
            return context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .head(let head) where head.status == .switchingProtocols:
            // The upgrade: the socket is the WebSocket's once this is flushed (it comes
            // with writeAndFlush; leaving before the flush would drop that flush).
            upgraded = true
            disarm()
        case .head(let head) where head.status.code < 200:
            break  // 100 Continue and the like: the response itself is still to come
        case .head:
            responding = true
        case .body:
            break
        case .end:
            responding = false
            unanswered = max(0, unanswered - 1)
            armIfIdle(context)
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        guard upgraded else { return }
        if let frames { try? context.pipeline.syncOperations.addHandler(frames, position: .after(self)) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Once refused, the parser reports every later byte as an error: dropped.
        if refused { return }
        guard let parseError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        // The error is not passed on: it is answered, and Hummingbird would answer it a
        // second time on a kept-alive connection.
        if parseError == .headerOverflow {
            refuse(context, status: .requestHeaderFieldsTooLarge, body: "the request's headers are over \(Self.maxHeadBytes / 1024) KiB\n")
        } else {
            refuse(context, status: .badRequest, body: "the request is not HTTP/1.1 this server reads\n")
        }
    }

    /// Answers `status` (unless a response is under way) and closes the connection; what
    /// the peer still sends is dropped.
    private func refuse(_ context: ChannelHandlerContext, status: HTTPResponseStatus, body: String, headers: HTTPHeaders = [:]) {
        refused = true
        disarm()
        if !responding {
            var buffer = context.channel.allocator.buffer(capacity: body.utf8.count)
            buffer.writeString(body)
            var fields: HTTPHeaders = [
                "Connection": "close", "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(buffer.readableBytes)
            ]
            fields.add(contentsOf: headers)
            let head = HTTPResponseHead(version: .http1_1, status: status, headers: fields)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        // A close now, with the peer's bytes unread, makes the kernel send a reset that can
        // overtake the answer: the sending side shuts instead, and what still arrives is
        // dropped until the peer closes or `linger` ends.
        context.close(mode: .output, promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: Self.linger) { loopBound.value.close(promise: nil) }
        endInput(context)
        context.read()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // While lingering, the handlers after this one close when it is over.
        if refused, mode == .all {
            if let promise { context.channel.closeFuture.cascade(to: promise) }
            return
        }
        context.close(mode: mode, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if refused, let event = event as? ChannelEvent {
            // Our own half-close is no news to the handlers after us (they would close at
            // once); the peer's end of input means it has read the answer.
            if event == .inputClosed { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Once every request read is answered, the next head is due. A body still coming
    /// does not stop the clock: the bridge reads none (it answers GET and HEAD), and one
    /// sent a byte at a time would hold the connection as a slow head would.
    private func armIfIdle(_ context: ChannelHandlerContext) {
        if unanswered == 0, !refused { arm(context) }
    }

    private func arm(_ context: ChannelHandlerContext) {
        disarm()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = loopBound.value
            handler.endInput(context)
            context.close(promise: nil)
        }
    }

    /// Tells the handlers after this one that no more of the request will come, as if the
    /// peer had closed its side. Closing under them instead makes Hummingbird's upgrade
    /// handler log an error for every connection so ended, which a peer could repeat at will.
    private func endInput(_ context: ChannelHandlerContext) {
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}

/// A server child channel with the request head guarded: `inner`'s pipeline, with a
/// `RequestHeadGuard` right after its HTTP parser.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let parser = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(RequestHeadGuard(), position: .after(parser))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// Hummingbird's `http1WebSocketUpgrade`, with the parser's header limit set to
    /// `RequestHeadGuard.maxHeadBytes`, the request head guarded (`RequestHeadGuard`) and
    /// a WebSocket's frames checked for their mask (`MaskedFramesOnly`).
    static func guardedHTTP1WebSocketUpgrade(
        configuration: WebSocketServerConfiguration,
        shouldUpgrade:
            @escaping @Sendable (HTTPRequest, any Channel, Logger) async throws -> ShouldUpgradeResult<
                WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
            >
    ) -> HTTPServerBuilder {
        let limit = RequestHeadGuard.maxHeadBytes
        let http1 = HTTP1Channel.Configuration(
            idleTimeout: nil, httpDecoderConfiguration: .init(maxHeaderFieldSize: limit, maxHeaderListSize: limit))
        return .init { responder in
            GuardedChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, configuration: .init(http1: http1, ws: configuration)
                ) { request, channel, logger in
                    let answer = try await shouldUpgrade(request, channel, logger)
                    if case .upgrade = answer {
                        // On the loop before the upgrade goes on (it waits for this answer).
                        try await channel.eventLoop.submit {
                            try channel.pipeline.syncOperations.handler(type: RequestHeadGuard.self).upgrading()
                        }.get()
                    }
                    return answer
                })
        }
    }
}
