import Hummingbird
import NIOCore

/// The context of a plain HTTP request: Hummingbird's basic one, plus the address of the
/// peer that sent it, so that the HTTP side believes a trusted proxy's forwarded headers
/// as the WebSocket handshake does (`OriginPolicy`).
struct PeerRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
