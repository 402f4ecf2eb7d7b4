import Dispatch
import FusionHost
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// One instance's journal in PostgreSQL: its header in `fusion_instances`, its records in
/// `fusion_records` in `seq` order, each the JSON of one journal line (docs/rules/journal-format.md;
/// the database keeps them whole, so no CRC). Every write checks the session's epoch in the
/// same statement, under a share lock on the session's row, so that it either lands
/// before a take-over's epoch change, and the new holder reads it, or is refused.
struct PostgresJournal: JournalLocation {
    let session: PostgresSessionJournals
    let instance: Int

    var name: String { "\(session.store.address) session \(session.sessionID.prefix(8))… instance \(instance)" }

    private var id: String { session.sessionID }
    private var epoch: Int64 { session.epoch }
    private var slot: ConnectionSlot { session.slot }

    func readHeader() throws(JournalError) -> JSONValue? {
        let text = try session.store.blocking("cannot read \(name)") { () throws -> String? in
            try slot.query("SELECT header FROM fusion_instances WHERE session_id = \(id) AND instance = \(instance)").await()
                .rows.first?.decode(String.self)
        }
        return try text.map { (text) throws(JournalError) in try parse(text, "its header") }
    }

    func openExisting() throws(JournalError) -> (store: any JournalStore, contents: JournalFile.Contents)? {
        guard let (contents, last) = try read() else { return nil }
        return (Store(journal: self, next: last + 1), contents)
    }

    func readContents() throws(JournalError) -> JournalFile.Contents? { try read()?.contents }

    /// The header and records, and the last record's `seq` (0: none).
    private func read() throws(JournalError) -> (contents: JournalFile.Contents, last: Int64)? {
        guard let header = try readHeader() else { return nil }
        let rows = try session.store.blocking("cannot read \(name)") {
            try slot.query("SELECT seq, record FROM fusion_records WHERE session_id = \(id) AND instance = \(instance) ORDER BY seq")
                .await().rows.map { try $0.decode((Int64, String).self) }
        }
        var records: [JSONValue] = []
        for (seq, text) in rows { records.append(try parse(text, "record \(seq)")) }
        return (JournalFile.Contents(header: header, records: records, droppedTail: nil), rows.last?.0 ?? 0)
    }

    func create(header: JSONValue) throws(JournalError) -> any JournalStore {
        try session.store.blocking("cannot create \(name)") {
            _ = try slot.query("DELETE FROM fusion_instances WHERE session_id = \(id) AND instance = \(instance)").await()
            let made = try slot.query(
                """
                INSERT INTO fusion_instances (session_id, instance, header)
                SELECT \(id), \(instance), \(header.jsonText) FROM fusion_sessions WHERE id = \(id) AND epoch = \(epoch) FOR SHARE
                """
            ).await()
            if made.metadata.rows != 1 { throw session.fenced(name) }
        }
        return Store(journal: self, next: 1)
    }

    func delete() {
        _ = try? slot.query(
            """
            DELETE FROM fusion_instances WHERE session_id = \(id) AND instance = \(instance)
            AND EXISTS (SELECT 1 FROM fusion_sessions WHERE id = \(id) AND epoch = \(epoch))
            """
        ).await()
    }

    private func parse(_ text: String, _ what: String) throws(JournalError) -> JSONValue {
        do { return try JSONParser.parse(text) } catch { throw JournalError(path: name, "\(what) is not JSON: \(error)") }
    }

    /// The journal open for appending.
    final class Store: JournalStore {
        let journal: PostgresJournal
        /// The next record's `seq`, and whether it was closed.
        private let next: NIOLockedValueBox<(seq: Int64, closed: Bool)>

        init(journal: PostgresJournal, next: Int64) {
            self.journal = journal
            self.next = NIOLockedValueBox((next, false))
        }

        var name: String { journal.name }
        var defersAppends: Bool { true }

        func append(_ record: JSONValue) throws(JournalError) {
            let landed = try write(record)
            let store = journal.session.store
            do {
                if try !landed.await() { throw journal.session.fenced(name) }
            } catch let error as JournalError {
                throw error
            } catch {
                throw store.failure(
                    "cannot append to \(name): \(PostgresSessionStore.describe(error))",
                    uncertain: PostgresSessionStore.mayHaveLanded(error))
            }
        }

        func appendDeferred(_ record: JSONValue, durable: @escaping @Sendable (JournalError?) -> Void) throws(JournalError)
            -> DeferredAppend
        {
            let journal = self.journal
            try write(record).whenComplete { result in
                let failure: JournalError?
                switch result {
                case .success(true): failure = nil
                case .success(false): failure = journal.session.fenced(journal.name)
                case .failure(let error):
                    failure = journal.session.store.failure(
                        "cannot append to \(journal.name): \(PostgresSessionStore.describe(error))",
                        uncertain: PostgresSessionStore.mayHaveLanded(error))
                }
                journal.session.answers.async { durable(failure) }
            }
            return .later
        }

        func replace(header: JSONValue, records: [JSONValue]) throws(JournalError) {
            let (first, closed) = next.withLockedValue { next -> (Int64, Bool) in
                defer { next.seq += Int64(records.count) }
                return (next.seq, next.closed)
            }
            if closed { throw JournalError(path: name, "it is closed") }
            let (id, instance, epoch) = (journal.session.sessionID, journal.instance, journal.session.epoch)
            let texts = records.map(\.jsonText)
            try journal.session.store.blocking("cannot replace \(name)") {
                let result = try journal.session.slot.query(
                    """
                    WITH fence AS (SELECT 1 FROM fusion_sessions WHERE id = \(id) AND epoch = \(epoch) FOR SHARE),
                    gone AS (DELETE FROM fusion_records WHERE session_id = \(id) AND instance = \(instance) AND seq < \(first)
                             AND EXISTS (SELECT 1 FROM fence))
                    INSERT INTO fusion_records (session_id, instance, seq, record)
                    SELECT \(id), \(instance), \(first) + r.ord - 1, r.text FROM fence, unnest(\(texts)::text[]) WITH ORDINALITY AS r(text, ord)
                    """
                ).await()
                if result.metadata.rows != records.count { throw journal.session.fenced(name) }
            }
        }

        func close() { next.withLockedValue { $0.closed = true } }

        /// Hands one record to the session's writer, which inserts it with its fence; whether
        /// it landed.
        private func write(_ record: JSONValue) throws(JournalError) -> EventLoopFuture<Bool> {
            let (seq, closed) = next.withLockedValue { next -> (Int64, Bool) in
                defer { next.seq += 1 }
                return (next.seq, next.closed)
            }
            if closed { throw JournalError(path: name, "it is closed") }
            let session = journal.session
            return session.writer.append(
                session: session.sessionID, instance: journal.instance, seq: seq, text: record.jsonText, epoch: session.epoch)
        }
    }
}
