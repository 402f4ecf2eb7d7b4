import Dispatch
import Testing

@testable import FusionHost

/// A record that several callers wait for: the send that wrote it, and `close`, which
/// waits for the last record to be durable. Both are woken once the store says it is
/// (a store that answers later: group commit, or PostgreSQL). When one waiter replaced
/// the other, a bridge stopping while an input was in flight hung forever.
@Suite struct JournalWaitersTests {
    /// A store that holds each record's answer until the test lets it go.
    final class HeldStore: JournalStore {
        let held = LockedValue<[@Sendable (JournalError?) -> Void]>([])
        var name: String { "held" }
        var defersAppends: Bool { true }
        func append(_ record: JSONValue) throws(JournalError) {}
        func appendDeferred(_ record: JSONValue, durable: @escaping @Sendable (JournalError?) -> Void) throws(JournalError)
            -> DeferredAppend
        {
            held.withLock { $0.append(durable) }
            return .later
        }
        func replace(header: JSONValue, records: [JSONValue]) throws(JournalError) {}
        func close() {}
        func release() {
            for answer in held.withLock({ answers in
                defer { answers = [] }; return answers
            }) { answer(nil) }
        }
        var waiting: Int { held.withLock { $0.count } }
    }

    struct HeldLocation: JournalLocation {
        let store: HeldStore
        var name: String { "held" }
        func openExisting() throws(JournalError) -> (store: any JournalStore, contents: JournalFile.Contents)? { nil }
        func readHeader() throws(JournalError) -> JSONValue? { nil }
        func readContents() throws(JournalError) -> JournalFile.Contents? { nil }
        func create(header: JSONValue) throws(JournalError) -> any JournalStore { store }
        func delete() {}
    }

    @Test(.timeLimit(.minutes(1))) func closeAndTheSendThatWroteTheLastRecordAreBothWoken() async throws {
        let library = try HostedLibrary(path: Support.examplesLibrary())
        let store = HeldStore()
        let journal = try JournaledInstance(
            location: HeldLocation(store: store), library: library, feature: "counter", options: ["clock": "manual"],
            startedBy: "JournalWaitersTests")
        let sent = Task { try await journal.send("\"increase\"") }
        #expect(await Support.eventually { Self.waiters(of: journal) == 1 }, "the send waits for its record")
        let closed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            journal.close()  // waits for the same record
            closed.signal()
        }
        #expect(await Support.eventually { Self.waiters(of: journal) == 2 }, "close waits for it too")
        store.release()
        #expect(closed.wait(timeout: .now() + 5) == .success, "close was never woken")
        try await sent.value  // the send was woken too, and applied its input
        #expect(try journal.instance.state().json.contains("\"value\":1"))
        try journal.instance.destroy()
    }

    /// How many callers wait for a record's sync: the event the test waits for, where
    /// a sleep would only make it likely.
    static func waiters(of journal: JournaledInstance) -> Int {
        journal.applying.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } }
    }
}
