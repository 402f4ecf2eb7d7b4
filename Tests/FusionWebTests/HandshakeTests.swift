import HTTPTypes
import Testing

@testable import FusionWeb

/// What the bridge reads from a WebSocket handshake besides its Origin: the session (in
/// Sec-WebSocket-Protocol, never the URL), the token (cookie, else Authorization).
@Suite struct HandshakeTests {
    private func handshake(_ fields: [(HTTPField.Name, String)], query: String = "") -> Handshake {
        var headers = HTTPFields()
        for (name, value) in fields { headers.append(HTTPField(name: name, value: value)) }
        return Handshake(headers: headers, query: Substring(query), tokenCookie: "fusion_token")
    }

    @Test func readsTheSessionFromTheSubprotocols() {
        let id = String(repeating: "ab", count: 16)
        let found = handshake([(.secWebSocketProtocol, "fusion, fusion.session.\(id)")])
        #expect(found.session == Substring(id))
        #expect(found.answeredProtocol == "fusion")
        // Split over two fields, as a proxy may pass them on.
        let split = handshake([(.secWebSocketProtocol, "fusion"), (.secWebSocketProtocol, " fusion.session.\(id) ")])
        #expect(split.session == Substring(id))
        #expect(handshake([(.secWebSocketProtocol, "fusion")]).session == nil)
    }

    @Test func answersOnlyItsOwnSubprotocol() {
        #expect(handshake([(.secWebSocketProtocol, "chat, superchat")]).answeredProtocol == nil)
        #expect(handshake([]).answeredProtocol == nil)
        #expect(handshake([]).responseHeaders[.secWebSocketProtocol] == nil)
        #expect(handshake([(.secWebSocketProtocol, "fusion")]).responseHeaders[.secWebSocketProtocol] == "fusion")
    }

    @Test func notesASessionInTheURL() {
        #expect(handshake([], query: "session=0123").sessionInURL == "0123")
        #expect(handshake([], query: "other=1").sessionInURL == nil)
    }

    @Test func readsTheTokenFromItsCookieFirst() {
        let both = handshake([(.cookie, "a=1; fusion_token=abc.def.ghi; b=2"), (.authorization, "Bearer other")])
        #expect(both.token == "abc.def.ghi")
        #expect(handshake([(.authorization, "Bearer xyz")]).token == "xyz")
        #expect(handshake([(.authorization, "bearer  xyz ")]).token == "xyz")
        #expect(handshake([(.authorization, "Basic xyz")]).token == nil)
        #expect(handshake([(.cookie, "fusion_token=\"q.r.s\"")]).token == "q.r.s")
        #expect(handshake([(.cookie, "fusion_token=")]).token == nil)
        #expect(handshake([(.cookie, "fusion_tokens=x; xfusion_token=y")]).token == nil)
        // Several Cookie fields (HTTP/2 splits them): the first of the name wins.
        #expect(handshake([(.cookie, "a=1"), (.cookie, "fusion_token=t1"), (.cookie, "fusion_token=t2")]).token == "t1")
    }
}
