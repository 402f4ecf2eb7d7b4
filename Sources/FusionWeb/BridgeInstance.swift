import FusionHost
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One instance of a feature in a session: the library's instance (reached only through
/// `HostedInstance`, the C ABI) under the id the page knows it by, and the host
/// requests it has open, so that a page that reloads is asked again.
final class BridgeInstance: Sendable {
    /// The id pages use: the key they chose, or "#N".
    let id: String
    let feature: String
    let hosted: HostedInstance
    /// The crash journal every change goes through first, when the bridge keeps them.
    let journal: JournaledInstance?
    /// Open host requests in the order they came: id and the message that announced it.
    private let openRequests = Mutex<[(id: UInt64, message: String)]>([])

    init(id: String, feature: String, hosted: HostedInstance, journal: JournaledInstance? = nil) {
        self.id = id
        self.feature = feature
        self.hosted = hosted
        self.journal = journal
    }

    // MARK: Changes, through the journal when there is one

    /// Applies an input; `message`, the id of the client's message that carried it, is
    /// journaled with it when there is a journal (`journaledOutcome`). Whether a message id was
    /// done already is the session's `MessageLedger`'s to say, before this is called.
    func send(_ input: JSONValue, message: String? = nil) async throws(BridgeError) {
        // A poison input sent again (the client did not hear it was refused): refused again.
        if let message, wasPoisoned(message) { throw .poisonInput(message, sandboxed: hosted.library.isSandboxed) }
        try refuseIfPoison(input)  // the same input on the same state, under a new id
        if let journal {
            try await apply { () async throws(JournaledCallError) in
                try await journal.send(input.jsonText, by: message.map(JSONValue.string))
            }
            return
        }
        try apply { () throws(JournaledCallError) in try Self.plain { () throws(FusionHostError) in try hosted.send(input) } }
    }

    /// Whether the `send` message of this id carried a poison input: it killed the bridge
    /// that applied it, and the bridge that took the session over put it out of the way.
    func wasPoisoned(_ message: String) -> Bool { journal?.wasPoisoned(.string(message)) ?? false }

    /// Whether the journal holds the `send` message of this id as done (applied, or
    /// refused by the feature): what a copy of the session made from the journal knows of
    /// the messages an earlier copy applied.
    /// What the journal holds of a message id: applied, refused by the feature (and how), or nil.
    func journaledOutcome(_ message: String) -> MessageLedger.Outcome? {
        switch journal?.outcome(ofMessage: .string(message)) {
        case .applied?: return .applied(version: nil)
        case .refused(let refusal)?: return .refused(BridgeError(status: refusal.status, message: refusal.message))
        case nil: return nil
        }
    }

    func respond(to request: UInt64, result: JSONValue) async throws(BridgeError) {
        try await apply { () async throws(JournaledCallError) in
            if let journal {
                try await journal.respond(to: request, result: result)
            } else {
                try Self.plain { () throws(FusionHostError) in try hosted.respond(to: request, result: result) }
            }
        }
        answered(request)
    }

    func failRequest(_ request: UInt64, message: String) async throws(BridgeError) {
        try await apply { () async throws(JournaledCallError) in
            if let journal {
                try await journal.failRequest(request, message: message)
            } else {
                try Self.plain { () throws(FusionHostError) in try hosted.failRequest(request, message: message) }
            }
        }
        answered(request)
    }

    func advanceClock(byNanoseconds nanoseconds: UInt64) throws(BridgeError) {
        try apply { () throws(JournaledCallError) in
            if let journal {
                try journal.advanceClock(byNanoseconds: nanoseconds)
            } else {
                try Self.plain { () throws(FusionHostError) in try hosted.advanceClock(byNanoseconds: nanoseconds) }
            }
        }
    }

    /// Destroys the library's instance; with `forgettingJournal`, its journal too (the
    /// page destroyed it, or its session expired), else the journal stays to be resumed.
    func destroy(forgettingJournal: Bool) {
        // Every record handed over is made durable first: the journal is whole when another
        // bridge, or this one restarted, resumes it.
        if forgettingJournal { journal?.forget() } else { journal?.close() }
        try? hosted.destroy()
    }

    private static func plain(_ call: () throws(FusionHostError) -> Void) throws(JournaledCallError) {
        do throws(FusionHostError) { try call() } catch { throw .refused(error) }
    }

    /// A refusal as the page sees it: an instance destroyed meanwhile (by another
    /// connection of the session) is unknown here, never a library handle.
    private func apply(_ call: () throws(JournaledCallError) -> Void) throws(BridgeError) {
        do throws(JournaledCallError) {
            try call()
        } catch {
            throw bridgeError(error)
        }
    }

    /// `apply` for a change that may wait for the journal's shared sync.
    private func apply(_ call: () async throws(JournaledCallError) -> Void) async throws(BridgeError) {
        do throws(JournaledCallError) {
            try await call()
        } catch {
            throw bridgeError(error)
        }
    }

    private func bridgeError(_ error: JournaledCallError) -> BridgeError {
        switch error {
        case .refused(let refusal) where HostedInstance.isPluginFault(refusal):
            // A sandboxed plugin faulted: the call failed and nothing else did. The session
            // goes on from the state before it (a journal recovers its instance itself, and
            // puts the record out of the way so that no replay applies it).
            if journal == nil { try? hosted.recover() }
            return .pluginFault(refusal)
        case .refused(let refusal):
            return refusal.status == .invalidHandle ? .unknownInstance(id) : BridgeError(refusal)
        case .notJournaled(let failure) where failure.fenced:
            return .sessionMoved
        case .notJournaled(let failure) where failure.uncertain:
            // The record may land yet: this copy cannot tell what the session holds.
            return .journalUncertain
        case .notJournaled(let failure):
            return BridgeError(status: "BRIDGE_JOURNAL_FAILURE", message: "not applied: \(failure)")
        }
    }

    /// The messages announcing the requests still open, for a connection joining late.
    var openRequestMessages: [String] { openRequests.withLock { $0.map(\.message) } }

    /// Keeps track of a request or cancel event; returns the message for the pages.
    func record(eventJSON: String) -> String? {
        guard let event = ServerMessage.hostEvent(instance: id, eventJSON: eventJSON) else { return nil }
        openRequests.withLock { open in
            if event.isRequest {
                open.append((event.requestID, event.message))
            } else {
                open.removeAll { $0.id == event.requestID }
            }
        }
        return event.message
    }

    /// A request answered by a page is no longer open.
    func answered(_ requestID: UInt64) {
        openRequests.withLock { $0.removeAll { $0.id == requestID } }
    }
}
