import NIOCore

/// Lets what a connection's reader writes for one message (the change, then the `ok`)
/// leave in one system call. Hummingbird flushes each frame it writes: two `writev`s per
/// input, and often two wake-ups of the page, for frames that are ready together. While
/// the reader writes, `WriteBatch.hold` keeps the flushes back, and `release` sends what
/// was written with one.
///
/// A batch never holds back more than `maxHeldBytes`, well under the socket's write
/// buffer limit (NIO's high watermark, 64 KiB): a writer that waits for the socket to take
/// writes again must never wait on bytes this handler keeps. A close sends what was
/// written first. Between the socket's own handler (`LingeringClose`, whose writes go
/// straight to the socket) and the WebSocket layer.
final class WriteBatchHandler: ChannelOutboundHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    static let maxHeldBytes = 16 * 1024

    private var holds = 0
    private var heldBytes = 0
    private var flushHeld = false
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        flushIfHeld(context)
        self.context = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if holds > 0, case .byteBuffer(let buffer) = unwrapOutboundIn(data) { heldBytes += buffer.readableBytes }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        guard holds > 0, heldBytes < Self.maxHeldBytes else {
            flushHeld = false
            heldBytes = 0
            return context.flush()
        }
        flushHeld = true
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        flushIfHeld(context)
        context.close(mode: mode, promise: promise)
    }

    fileprivate func hold() {
        holds += 1
    }

    fileprivate func release() {
        holds -= 1
        if holds == 0, let context { flushIfHeld(context) }
    }

    private func flushIfHeld(_ context: ChannelHandlerContext) {
        heldBytes = 0
        guard flushHeld else { return }
        flushHeld = false
        context.flush()
    }
}

/// The reader's handle on its connection's `WriteBatchHandler`. It batches only where the
/// reader runs on the channel's event loop (docs/web.md, "Threads"): elsewhere each write
/// reaches the loop as a task of its own with its flush, and holding them back would cost a
/// wake-up of the loop for each hold and release, more than the write it saves.
struct WriteBatch: Sendable {
    private let handler: NIOLoopBound<WriteBatchHandler>

    /// Adds `handler` to `channel`'s pipeline after `after`; call it on the channel's event loop.
    static func add(to channel: any Channel, after: any ChannelHandler) throws -> WriteBatch {
        let handler = WriteBatchHandler()
        try channel.pipeline.syncOperations.addHandler(handler, position: .after(after))
        return WriteBatch(handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
    }

    /// Runs `body`, the reader's writes for one message, with the flushes held back until
    /// it returns, when it runs on the channel's event loop.
    func writing(_ body: () async -> Void) async {
        guard handler.eventLoop.inEventLoop else { return await body() }
        handler.value.hold()
        await body()
        // Back on the loop: the writes' actor hops return to the task's preferred executor.
        if handler.eventLoop.inEventLoop {
            handler.value.release()
        } else {
            handler.eventLoop.execute { [handler] in handler.value.release() }
        }
    }
}
