import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Closes a WebSocket whose page vanished (`BridgeConfiguration.peerTimeout`) with the
/// system's TCP timers instead of a task per connection that pings: bytes the bridge sent
/// (a heartbeat, a patch) left unacknowledged for the timeout fail the socket
/// (`TCP_USER_TIMEOUT`), and a socket that carries nothing is probed by keep-alive,
/// which gives up within the same time. Either way the reader sees the socket end.
enum PeerTimeout {
    /// Sets the timers on `channel`'s socket; called on its event loop.
    static func apply(_ timeout: Duration, to channel: any Channel) throws {
        guard let options = channel.syncOptions else { return }
        let milliseconds = Int(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let seconds = max(1, milliseconds / 1000)
        // Probes start after half the timeout of silence, then three, a sixth of it apart.
        try options.setOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
        try options.setOption(tcp(TCP_KEEPIDLE), value: max(1, seconds / 2))
        try options.setOption(tcp(TCP_KEEPINTVL), value: max(1, seconds / 6))
        try options.setOption(tcp(TCP_KEEPCNT), value: 3)
        try options.setOption(tcp(TCP_USER_TIMEOUT), value: milliseconds)
    }

    private static func tcp(_ name: Int32) -> ChannelOptions.Types.SocketOption {
        .init(level: .tcp, name: .init(rawValue: name))
    }
}
