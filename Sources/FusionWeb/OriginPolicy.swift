import Synchronization

/// Which pages may open the WebSocket: those served by this server itself, and the
/// origins given with --allow-origin. A browser always sends `Origin` on a WebSocket
/// handshake, so a page from another site (or a rebound DNS name) is refused; a
/// program that sends no `Origin` is not a browser page and is let in.
final class OriginPolicy: Sendable {
    private let host: String
    private let extra: Set<String>
    private let port = Mutex(0)

    init(host: String, allowed: [String]) {
        self.host = host
        extra = Set(allowed.map(Self.normalized))
    }

    /// Set once the server listens (the port may have been chosen by the system).
    func listening(on port: Int) {
        self.port.withLock { $0 = port }
    }

    /// The origins of this server's own pages.
    var ownOrigins: [String] {
        let port = port.withLock { $0 }
        var hosts = [Self.bracketed(host)]
        if Self.isLoopback(host) { hosts += ["localhost", "127.0.0.1", "[::1]"] }
        return Array(Set(hosts)).sorted().map { "http://\($0):\(port)" }
    }

    /// Whether a handshake with this `Origin` (nil: none sent) and `Host` may open the socket.
    func allows(origin: String?, hostHeader: String?) -> Bool {
        guard let origin else { return true }
        let given = Self.normalized(origin)
        if extra.contains(given) || ownOrigins.contains(given) { return true }
        // Bound to every address, the server cannot list its names: a page it served
        // itself has the origin of the Host it was asked by.
        if Self.isWildcard(host), let hostHeader { return given == "http://" + hostHeader.lowercased() }
        return false
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }

    static func isWildcard(_ host: String) -> Bool { host == "0.0.0.0" || host == "::" || host == "[::]" }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    private static func normalized(_ origin: String) -> String {
        var text = origin.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
