import HTTPTypes

/// What a WebSocket handshake says besides its Origin: the session it rejoins, the
/// user's token, and the subprotocol to answer (docs/web-protocol.md, "Connecting").
///
/// A session is named in `Sec-WebSocket-Protocol` (`fusion, fusion.session.ID`), which
/// a page sets with `new WebSocket(url, protocols)` and no access log records; never in
/// the URL, which every log on the way does. The token comes the way a browser sends
/// it by itself: the cookie the team's login set (`HttpOnly`); a program may send
/// `Authorization: Bearer` instead.
struct Handshake {
    /// The subprotocol this protocol is known by; the server answers with it.
    static let protocolName = "fusion"
    /// Prefixes a session id among the offered subprotocols.
    static let sessionPrefix = "fusion.session."

    /// The subprotocols offered, in order.
    let offered: [Substring]
    /// The session named in the subprotocols.
    let session: Substring?
    /// `?session=` of the URL: refused unless `--allow-session-in-url`.
    let sessionInURL: Substring?
    /// The token, from the cookie or `Authorization: Bearer`.
    let token: String?

    init(headers: HTTPFields, query: Substring, tokenCookie: String) {
        offered = headers[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }.map(Self.trimmed)
        session = offered.first { $0.hasPrefix(Self.sessionPrefix) }.map { $0.dropFirst(Self.sessionPrefix.count) }
        sessionInURL = WebBridge.queryValue("session", in: query)
        let bearer = headers[.authorization].flatMap { value -> String? in
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return String(Self.trimmed(parts[1]))
        }
        token = Self.cookie(named: tokenCookie, in: headers[values: .cookie]) ?? bearer
    }

    /// The subprotocol the 101 names: `fusion` when offered. A browser that offered
    /// subprotocols fails a handshake whose answer names none of them.
    var answeredProtocol: String? { offered.contains(Substring(Self.protocolName)) ? Self.protocolName : nil }

    /// The headers of the 101.
    var responseHeaders: HTTPFields {
        var headers = HTTPFields()
        if let answeredProtocol { headers[.secWebSocketProtocol] = answeredProtocol }
        return headers
    }

    /// A cookie's value from `Cookie` fields (`a=1; b=2`); the first of that name wins,
    /// as browsers send the most specific first. Quotes around a value are dropped.
    static func cookie(named name: String, in fields: [String]) -> String? {
        for field in fields {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, trimmed(parts[0]) == Substring(name) else { continue }
                var value = trimmed(parts[1])
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                return value.isEmpty ? nil : String(value)
            }
        }
        return nil
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
