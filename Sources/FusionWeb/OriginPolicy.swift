import HTTPTypes
import Synchronization

/// Which pages may open the WebSocket: those served by this server itself, and the
/// origins given with --allow-origin. A browser always sends `Origin` on a WebSocket
/// handshake, so a page from another site is refused; a program that sends no
/// `Origin` is not a browser page and is let in.
///
/// Behind a proxy the pages come from the proxy's origin: give it with `--public-origin`,
/// or let the proxy say it (`X-Forwarded-Host`, `X-Forwarded-Proto`), which is believed
/// only from the addresses of `--trusted-proxy`: anyone else could send those headers.
final class OriginPolicy: Sendable {
    private let host: String
    private let extra: Set<String>
    private let trustedProxies: Set<String>
    /// The server's own origins, known once it listens (the port may be the system's choice).
    private let own = Mutex<[String]>([])

    init(host: String, allowed: [String], trustedProxies: [String] = []) {
        self.host = host.lowercased()
        extra = Set(allowed.map(Self.normalized))
        self.trustedProxies = Set(trustedProxies)
    }

    /// Whether `peer` (an IP address) is one of `--trusted-proxy`.
    func trusts(peer: String?) -> Bool { peer.map(trustedProxies.contains) ?? false }

    /// The origin a trusted proxy says the page was loaded from; nil from any other peer,
    /// or without `X-Forwarded-Host`.
    func forwardedOrigin(peer: String?, forwardedHost: String?, forwardedProto: String?) -> String? {
        guard let peer, trustedProxies.contains(peer), let forwardedHost, !forwardedHost.isEmpty else { return nil }
        // The first value of a list: the proxy nearest the browser is the only one that saw it.
        let host = Self.firstOfList(forwardedHost)
        let scheme = forwardedProto.map { Self.firstOfList($0).lowercased() } ?? "http"
        guard scheme == "http" || scheme == "https" else { return nil }
        return "\(scheme)://\(host.lowercased())"
    }

    /// Called once the server listens.
    func listening(on port: Int) {
        var hosts = [Self.bracketed(host)]
        if Self.isLoopback(host) { hosts += ["localhost", "127.0.0.1", "[::1]"] }
        // A browser leaves the scheme's default port out of Origin.
        let suffix = port == 80 ? "" : ":\(port)"
        let origins = Array(Set(hosts)).sorted().map { "http://\($0)\(suffix)" }
        own.withLock { $0 = origins }
    }

    /// The origins of this server's own pages, then those allowed with --allow-origin.
    var allowedOrigins: [String] { own.withLock { $0 } + extra.sorted() }

    /// Whether a request with these headers, for `authority` (its `Host`) and from `peer`
    /// (an IP address), may open the socket: the one check of the WebSocket handshake and
    /// of a plain `GET /ws`, so that both believe a trusted proxy alike.
    func allows(_ headers: HTTPFields, authority: String?, peer: String?) -> Bool {
        let forwarded = forwardedOrigin(
            peer: peer, forwardedHost: headers[Self.forwardedHost], forwardedProto: headers[Self.forwardedProto])
        return allows(origin: headers[.origin], hostHeader: authority, forwardedOrigin: forwarded)
    }

    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    /// Whether a handshake with this `Origin` (nil: none sent) and `Host` may open the socket.
    func allows(origin: String?, hostHeader: String?, forwardedOrigin: String? = nil) -> Bool {
        guard let origin else { return true }
        let given = Self.normalized(origin)
        if extra.contains(given) || own.withLock({ $0.contains(given) }) { return true }
        if let forwardedOrigin, given == Self.normalized(forwardedOrigin) { return true }
        // Bound to every address, the server cannot list its names: a page it served
        // itself has the origin of the Host it was asked by. Only an address, never a
        // name: a name could be one rebound to this machine by another site's DNS.
        if Self.isWildcard(host), let hostHeader, Self.isAddressLiteral(hostHeader) {
            return given == "http://" + hostHeader.lowercased()
        }
        return false
    }

    private static func firstOfList(_ value: String) -> String {
        let first = value.split(separator: ",", omittingEmptySubsequences: false).first ?? ""
        return String(first.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    static func isLoopback(_ host: String) -> Bool { BridgeConfiguration.isLoopback(host) }

    static func isWildcard(_ host: String) -> Bool { host == "0.0.0.0" || host == "::" || host == "[::]" }

    /// "192.168.1.4:8080" or "[fe80::1]:8080": an IP address, with or without a port.
    static func isAddressLiteral(_ authority: String) -> Bool {
        if authority.hasPrefix("[") { return authority.contains("]") }
        let host = authority.split(separator: ":", maxSplits: 1).first ?? ""
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isNumber) }
    }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    private static func normalized(_ origin: String) -> String {
        var text = origin.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
