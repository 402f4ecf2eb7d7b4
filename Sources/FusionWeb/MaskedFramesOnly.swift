import NIOCore
import NIOWebSocket

/// Fails a WebSocket connection whose client sends a frame that is not masked: RFC 6455
/// 5.1 says a server must, and NIO's frame decoder reads such frames as if they were
/// fine (Hummingbird hands on the payload without the mask's presence). The failure is a
/// close with 1002 and a reason, written straight to the socket (`LingeringClose`), and
/// nothing is read from there on: not the read that held the frame (frames before it in
/// that read included), nor anything after it.
///
/// It reads the raw bytes, ahead of the frame decoder, and only the frames' headers.
/// `RequestHeadGuard` makes it when a WebSocket upgrade is decided and feeds it the bytes
/// that came in one read with the request's head (the HTTP parser hands them on when the
/// upgrade removes it); with the 101 it takes its place in the pipeline.
final class MaskedFramesOnly: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    static let reason = "a client's frames must be masked (RFC 6455 5.1)"

    private var scanner = ClientFrameScanner()
    /// An unmasked frame was read: nothing more is passed on.
    private(set) var failed = false

    /// Whether to pass `buffer` on: not if it holds an unmasked frame (`failed` is then
    /// true), nor after one.
    func admit(_ buffer: ByteBuffer) -> Bool {
        if !failed, !scanner.allMasked(buffer.readableBytesView) { failed = true }
        return !failed
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Failed on the bytes read with the request's head, before the 101 went out: the
        // close can follow it now.
        if failed { fail(context) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if failed { return }
        if admit(unwrapInboundIn(data)) { context.fireChannelRead(data) } else { fail(context) }
    }

    private func fail(_ context: ChannelHandlerContext) {
        guard let closer = try? context.pipeline.syncOperations.handler(type: LingeringClose.self) else {
            return context.close(promise: nil)
        }
        closer.fail(.protocolError, reason: Self.reason)
    }
}

/// Follows a client's WebSocket frames through its raw bytes, header by header (RFC 6455
/// 5.2), for the mask bit; the payloads are skipped, never copied.
struct ClientFrameScanner {
    /// Bytes of the current frame still to skip: its masking key and payload.
    private var skip: UInt64 = 0
    /// Bytes of the current frame's header read so far (0: the next byte begins a frame).
    private var read: UInt8 = 0
    /// Extended payload length bytes still to read.
    private var lengthBytesLeft: UInt8 = 0
    private var length: UInt64 = 0

    /// Whether every frame whose header is in `bytes` (the next bytes of the stream) is masked.
    mutating func allMasked(_ bytes: ByteBufferView) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if skip > 0 {
                let skipped = Int(min(skip, UInt64(bytes.endIndex - index)))
                index += skipped
                skip -= UInt64(skipped)
                continue
            }
            let byte = bytes[index]
            index += 1
            switch read {
            case 0:
                read = 1  // FIN, RSV and opcode: the frame decoder's to judge
            case 1:
                guard byte & 0x80 != 0 else { return false }
                let short = byte & 0x7F
                lengthBytesLeft = short == 126 ? 2 : short == 127 ? 8 : 0
                length = lengthBytesLeft == 0 ? UInt64(short) : 0
                read = 2
                if lengthBytesLeft == 0 { headerRead() }
            default:
                length = length << 8 | UInt64(byte)
                lengthBytesLeft -= 1
                if lengthBytesLeft == 0 { headerRead() }
            }
        }
        return true
    }

    private mutating func headerRead() {
        // The masking key, then the payload. (A length past the decoder's limit fails the
        // connection there, with 1009.)
        skip = length > UInt64.max - 4 ? UInt64.max : length + 4
        read = 0
        length = 0
    }
}
