import NIOCore
import NIOWebSocket

/// Closes a connection the way TCP lets a peer read why (a lingering close, as web
/// servers do): when the WebSocket layer gives up on a frame too large to read and
/// closes with 1009, the peer may still be writing that frame. Closing the socket with
/// its bytes unread makes the kernel answer with a reset, and the peer then sees code
/// 1006, never the close frame. So a close turns into a half-close: the close frame and
/// everything before it go out, the sending side shuts, and what the peer still sends is
/// read and dropped until it closes too, or `linger` has passed.
///
/// Only a connection closed with 1009 lingers: it sees the close frame go out (it is
/// first in the pipeline, next to the socket, so every write and close passes through
/// it). Other closes (a connection dropped for not reading, shutdown) stay immediate.
/// So does one failed below the WebSocket layer (`fail`, for `MaskedFramesOnly`), whose
/// close frame it writes itself.
final class LingeringClose: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// A server's close frame with a two-byte payload: FIN and opcode 8, length 2.
    private static let closeHeader: [UInt8] = [0x88, 0x02]
    /// 1009, "message too big".
    private static let tooBig: [UInt8] = [0x03, 0xF1]

    /// The longest a closing connection keeps reading.
    let linger: TimeAmount
    private var closing: EventLoopPromise<Void>?
    private var lingering = false
    /// A close frame went out after which the next close lingers: 1009, or `fail`'s.
    private var closeLingers = false
    /// The last write was a close frame's header alone (the encoder writes the payload apart).
    private var afterCloseHeader = false

    /// This handler's own, while in the pipeline: `fail` writes from here, to the socket.
    private var context: ChannelHandlerContext?

    init(linger: TimeAmount = .seconds(2)) {
        self.linger = linger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Fails the connection from below the WebSocket layer: a close frame with `code` and
    /// `reason` (at most 123 bytes) goes straight to the socket, after what was written
    /// before, then the connection closes, lingering. Call it on the channel's event loop.
    func fail(_ code: WebSocketErrorCode, reason: String) {
        guard let context, context.channel.isActive, !lingering else { return }
        let text = reason.utf8.prefix(123)
        var frame = context.channel.allocator.buffer(capacity: 4 + text.count)
        frame.writeBytes([0x88, UInt8(2 + text.count)])
        frame.write(webSocketErrorCode: code)
        frame.writeBytes(text)
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(frame)), promise: nil)
        closeLingers = true
        linger(context, promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .byteBuffer(let buffer) = unwrapOutboundIn(data) {
            let bytes = buffer.readableBytesView
            if afterCloseHeader, bytes.starts(with: Self.tooBig) { closeLingers = true }
            if bytes.starts(with: Self.closeHeader + Self.tooBig) { closeLingers = true }
            afterCloseHeader = bytes.elementsEqual(Self.closeHeader)
        }
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, closeLingers, context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        linger(context, promise: promise)
    }

    private func linger(_ context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        if lingering {  // a second close while lingering: it completes with the first
            if let promise { closing?.futureResult.cascade(to: promise) }
            return
        }
        lingering = true
        let done = context.eventLoop.makePromise(of: Void.self)
        closing = done
        if let promise { done.futureResult.cascade(to: promise) }
        // The peer reads what was written, then the end of it (FIN), not a reset.
        context.close(mode: .output, promise: nil)
        context.read()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: linger) {
            loopBound.value.close(mode: .all, promise: nil)
        }
        context.channel.closeFuture.whenComplete { _ in done.succeed(()) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard lingering else { return context.fireChannelRead(data) }
        context.read()  // dropped: keep reading until the peer closes
    }

    func read(context: ChannelHandlerContext) {
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Our own half-close is not news to the handlers after us, which would close at once.
        if lingering, let event = event as? ChannelEvent, event == .outputClosed { return }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if lingering { return }  // the peer's bytes arriving after the close are not errors
        context.fireErrorCaught(error)
    }
}
