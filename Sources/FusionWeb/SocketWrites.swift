import NIOCore

/// Lets what a connection's reader writes for one message (the change, then the `ok`)
/// leave in one system call. Hummingbird flushes each frame it writes: two `writev`s per
/// input, and often two wake-ups of the page, for frames that are ready together. While
/// the reader writes, `SocketWrites.hold` keeps the flushes back, and `release` sends what
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

/// A connection's socket as its writers see it: whether it takes a write now, and the
/// flushes its `WriteBatchHandler` holds back while the reader writes a message's answer.
/// It batches only where the reader runs on the channel's event loop (docs/web.md,
/// "Threads"): elsewhere each write reaches the loop as a task of its own with its flush,
/// and holding them back would cost a wake-up of the loop for each hold and release, more
/// than the write it saves.
///
/// A class, passed as one reference where a connection's task keeps it: every word more in
/// the frames of an idle connection's task can cost it a slab of its task allocator
/// (docs/performance.md, "memory per idle session").
final class SocketWrites: Sendable {
    private let channel: any Channel
    private let batch: NIOLoopBound<WriteBatchHandler>

    /// Adds a `WriteBatchHandler` to `channel`'s pipeline after `after`; call it on the
    /// channel's event loop.
    init(_ channel: any Channel, batchingAfter after: any ChannelHandler) throws {
        let handler = WriteBatchHandler()
        try channel.pipeline.syncOperations.addHandler(handler, position: .after(after))
        self.channel = channel
        self.batch = NIOLoopBound(handler, eventLoop: channel.eventLoop)
    }

    /// Whether the socket takes a write now without waiting (its buffers are not full).
    var isWritable: Bool { channel.isWritable }

    /// Holds the flushes back, when called on the channel's event loop; returns whether
    /// it did, and then `release` must follow. Not a method taking the writes as a
    /// closure: the reader's deepest call would be a frame deeper.
    func hold() -> Bool {
        guard batch.eventLoop.inEventLoop else { return false }
        batch.value.hold()
        return true
    }

    /// Sends what was held back, with one flush.
    func release() {
        let batch = batch
        // Back on the loop, normally: the writes' actor hops return to the task's
        // preferred executor.
        if batch.eventLoop.inEventLoop {
            batch.value.release()
        } else {
            batch.eventLoop.execute { batch.value.release() }
        }
    }
}
