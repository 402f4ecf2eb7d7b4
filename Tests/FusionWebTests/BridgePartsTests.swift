import Foundation
import FusionHost
import Testing

@testable import FusionWeb

/// The bridge's parts that decide what a page may do: message checks, the static
/// route's confinement, origins, session ids, the rate limit.
@Suite struct ClientMessageTests {
    private func parse(_ text: String) throws(RejectedMessage) -> ClientEnvelope {
        try ClientEnvelope.parse(Array(text.utf8))
    }

    private func rejection(_ text: String) -> RejectedMessage? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func readsEveryMessageType() throws {
        #expect(try parse(#"{"type":"manifest","id":1}"#).message == .manifest)
        let create = try parse(#"{"type":"create","id":"a","feature":"wifi","key":"w-1","reuse":true,"options":{"seed":3}}"#)
        #expect(create.id == .string("a"))
        #expect(create.message == .create(feature: "wifi", options: ["seed": 3], key: "w-1", reuse: true))
        #expect(
            try parse(##"{"type":"send","instance":"#1","input":"increase"}"##).message == .send(instance: "#1", input: .string("increase"))
        )
        #expect(
            try parse(#"{"type":"respond","instance":"p","request":7,"result":{}}"#).message
                == .respond(instance: "p", request: 7, result: .object([])))
        #expect(
            try parse(#"{"type":"fail","instance":"p","request":7,"message":"no"}"#).message
                == .fail(instance: "p", request: 7, message: "no"))
        #expect(try parse(#"{"type":"advanceClock","instance":"p","seconds":1.5}"#).message == .advanceClock(instance: "p", seconds: 1.5))
        #expect(try parse(#"{"type":"resync","instance":"p"}"#).message == .resync(instance: "p"))
        #expect(try parse(#"{"type":"destroy","instance":"p"}"#).message == .destroy(instance: "p"))
    }

    @Test func refusesWhatItCannotReadAndSaysWhy() {
        let rows: [(String, String, JSONValue?)] = [
            ("nope", "not JSON", nil),
            ("[1]", "a message is a JSON object", nil),
            (#"{"id":1}"#, "has no \"type\"", .integer(1)),
            (#"{"type":"jump","id":2}"#, "unknown message type \"jump\"", .integer(2)),
            (#"{"type":"send","id":3,"instance":"c","inptu":"x"}"#, "unknown field \"inptu\"", .integer(3)),
            (#"{"type":"send","id":4,"instance":"c"}"#, "needs \"input\"", .integer(4)),
            (#"{"type":"send","id":5,"instance":7,"input":"x"}"#, "\"instance\" of a \"send\" message is a string", .integer(5)),
            (#"{"type":"create","id":6,"feature":"counter","key":"a b"}"#, "\"key\" is 1 to 64 characters", .integer(6)),
            (
                #"{"type":"create","id":7,"feature":"counter","options":[]}"#, "\"options\" of a \"create\" message is an object",
                .integer(7)
            ),
            (#"{"type":"respond","id":8,"instance":"p","request":-1,"result":1}"#, "a whole number", .integer(8)),
            (#"{"type":"advanceClock","id":9,"instance":"p","seconds":-1}"#, "from 0 to 1e9", .integer(9)),
            (#"{"type":"manifest","id":{"x":1}}"#, "\"id\" is a number or a string", nil)
        ]
        for (text, words, id) in rows {
            let rejected = rejection(text)
            #expect(rejected?.error.status == "BRIDGE_MALFORMED_MESSAGE", "\(text)")
            #expect(rejected?.error.message.contains(words) == true, "\(text): \(rejected?.error.message ?? "accepted")")
            #expect(rejected?.id == id, "\(text)")
        }
    }
}

@Suite struct StaticFilesTests {
    let root: URL
    let files: StaticFiles

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("fusionweb-\(UUID().uuidString)")
        let pages = root.appendingPathComponent("pages")
        try FileManager.default.createDirectory(at: pages.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try "index".write(to: pages.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "a page".write(to: pages.appendingPathComponent("sub/page one.html"), atomically: true, encoding: .utf8)
        try "secret".write(to: root.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try "hidden".write(to: pages.appendingPathComponent(".env"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: pages.appendingPathComponent("out.txt").path, withDestinationPath: root.appendingPathComponent("secret.txt").path)
        try FileManager.default.createSymbolicLink(atPath: pages.appendingPathComponent("up").path, withDestinationPath: root.path)
        files = try #require(StaticFiles(folder: pages.path))
    }

    @Test func servesFilesUnderItsFolder() {
        #expect(files.file(for: "/")?.hasSuffix("/pages/index.html") == true)
        #expect(files.file(for: "/index.html")?.hasSuffix("/pages/index.html") == true)
        #expect(files.file(for: "/sub/page%20one.html")?.hasSuffix("/pages/sub/page one.html") == true)
    }

    @Test func refusesEverythingOutsideIt() {
        for path in [
            "/../secret.txt", "/sub/../../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/out.txt", "/up/secret.txt",
            "/.env", "/sub/%00", "/missing.html", "/sub", "/%zz", "/..%5csecret.txt"
        ] {
            #expect(files.file(for: Substring(path)) == nil, "\(path)")
        }
    }

    @Test func namesContentTypes() {
        #expect(StaticFiles.contentType(of: "/a/b.js") == "text/javascript; charset=utf-8")
        #expect(StaticFiles.contentType(of: "/a/index.HTML") == "text/html; charset=utf-8")
        #expect(StaticFiles.contentType(of: "/a/b") == "application/octet-stream")
    }
}

@Suite struct OriginAndSessionTests {
    @Test func acceptsOnlyItsOwnOriginsOnLoopback() {
        let policy = OriginPolicy(host: "127.0.0.1", allowed: ["http://localhost:3000/"])
        policy.listening(on: 8080)
        #expect(policy.allows(origin: nil, hostHeader: nil))
        #expect(policy.allows(origin: "http://127.0.0.1:8080", hostHeader: nil))
        #expect(policy.allows(origin: "http://localhost:8080", hostHeader: nil))
        #expect(policy.allows(origin: "http://[::1]:8080", hostHeader: nil))
        #expect(policy.allows(origin: "http://localhost:3000", hostHeader: nil))
        #expect(!policy.allows(origin: "http://evil.example", hostHeader: "127.0.0.1:8080"))
        #expect(!policy.allows(origin: "http://127.0.0.1:9090", hostHeader: nil))
        #expect(!policy.allows(origin: "null", hostHeader: nil))
        // A rebound DNS name sends its own Host: still not one of ours.
        #expect(!policy.allows(origin: "http://rebound.example:8080", hostHeader: "rebound.example:8080"))
    }

    @Test func onEveryAddressTheAddressAskedForIsTheOrigin() {
        let policy = OriginPolicy(host: "0.0.0.0", allowed: [])
        policy.listening(on: 8080)
        #expect(policy.allows(origin: "http://192.168.1.4:8080", hostHeader: "192.168.1.4:8080"))
        #expect(!policy.allows(origin: "http://evil.example", hostHeader: "192.168.1.4:8080"))
        // A name may be rebound to this machine by another site's DNS: never by Host alone.
        #expect(!policy.allows(origin: "http://rebound.example:8080", hostHeader: "rebound.example:8080"))
    }

    @Test func thePortABrowserLeavesOutAndTheCaseOfTheHost() {
        let policy = OriginPolicy(host: "MyBox.local", allowed: [])
        policy.listening(on: 80)
        #expect(policy.allows(origin: "http://mybox.local", hostHeader: nil))
        #expect(!policy.allows(origin: "http://mybox.local:8080", hostHeader: nil))
    }

    @Test func sessionIdsAre128RandomBits() {
        let ids = (0..<1000).map { _ in SessionID.make() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { SessionID.isWellFormed(Substring($0)) })
        #expect(!SessionID.isWellFormed("../../etc"))
        #expect(!SessionID.isWellFormed(Substring(String(repeating: "A", count: 32))))
        // Every hex digit appears in every position over many ids: no fixed parts.
        for position in 0..<32 {
            let digits = Set(ids.map { Array($0)[position] })
            #expect(digits.count == 16, "position \(position)")
        }
    }

    @Test func logsNameASessionByItsFirstEightDigitsOnly() {
        let id = SessionID.make()
        #expect(SessionID.logTag(id) == "\(id.prefix(8))…")
        let warning = "journal /var/fusion/\(id)/1.journal: cut short; and /x/\(id)"
        #expect(SessionID.redacted(warning) == "journal /var/fusion/\(id.prefix(8))…/1.journal: cut short; and /x/\(id.prefix(8))…")
        // Shorter runs of hex digits (numbers, hashes of other things) stay as they are.
        #expect(SessionID.redacted("record 1234 of deadbeef") == "record 1234 of deadbeef")
        #expect(SessionID.redacted("") == "")
    }

    @Test func rateLimitAllowsABurstThenTheRate() {
        let start = ContinuousClock.now
        var limiter = RateLimiter(perSecond: 10, now: start)
        let burst = (0..<15).filter { _ in limiter.allow(now: start) }.count
        #expect(burst == 10)
        let early = limiter.allow(now: start + .milliseconds(50))
        let later = limiter.allow(now: start + .milliseconds(160))
        #expect(!early)
        #expect(later)
    }
}

@Suite struct ServerMessageTests {
    @Test func splicesTheLibrarysJSONWithoutReencoding() {
        #expect(
            ServerMessage.change(instance: "c", statePatch: #"{"from":null,"to":3,"state":{"value":1}}"#)
                == #"{"type":"state","instance":"c","from":null,"to":3,"state":{"value":1}}"#)
        #expect(
            ServerMessage.change(instance: "#1", statePatch: #"{"from":2,"to":3,"patch":[]}"#)
                == ##"{"type":"patch","instance":"#1","from":2,"to":3,"patch":[]}"##)
        // Another library may write its members in another order.
        #expect(ServerMessage.change(instance: "x", statePatch: #"{"to":3,"from":null,"state":{}}"#).hasPrefix(#"{"type":"state""#))
    }

    @Test func forwardsHostEvents() throws {
        let request = try #require(
            ServerMessage.hostEvent(instance: "p", eventJSON: #"{"event":"request","id":7,"kind":"fetchPet","payload":{"profileID":"b"}}"#))
        #expect(request.message == #"{"type":"request","instance":"p","id":7,"kind":"fetchPet","payload":{"profileID":"b"}}"#)
        #expect(request.requestID == 7 && request.isRequest)
        let cancel = try #require(ServerMessage.hostEvent(instance: "p", eventJSON: #"{"event":"cancel","id":7}"#))
        #expect(cancel.message == #"{"type":"cancel","instance":"p","id":7}"#)
        #expect(ServerMessage.hostEvent(instance: "p", eventJSON: #"{"event":"other","id":7}"#) == nil)
    }
}
