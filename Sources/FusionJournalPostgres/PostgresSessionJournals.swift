import Dispatch
import FusionHost
import NIOCore
import PostgresNIO

/// One session this bridge holds in PostgreSQL, with the epoch it was taken with: the
/// journals of its instances (rows of `fusion_instances` and `fusion_records`).
final class PostgresSessionJournals: SessionJournals {
    let store: PostgresSessionStore
    let sessionID: String
    let owner: String?
    /// Checked by every write, in the same statement (fencing).
    let epoch: Int64
    let slot: ConnectionSlot
    /// Appends its records, batching them with other sessions' on the same connection.
    let writer: RecordWriter
    /// Where the database's answers are passed on, in order, off its event loop (the
    /// connection's: one serial queue per connection, not per session).
    var answers: DispatchQueue { slot.answers }
    /// Whether the last holder did not let the session go cleanly (it crashed, or lost
    /// the database): then one of its inputs may have killed it.
    let mayHoldPoison: Bool

    init(
        store: PostgresSessionStore, sessionID: String, owner: String?, epoch: Int64, slot: ConnectionSlot, writer: RecordWriter,
        mayHoldPoison: Bool
    ) {
        self.store = store
        self.sessionID = sessionID
        self.owner = owner
        self.epoch = epoch
        self.slot = slot
        self.writer = writer
        self.mayHoldPoison = mayHoldPoison
    }

    func location(instance number: Int) -> any JournalLocation {
        PostgresJournal(session: self, instance: number)
    }

    func instanceNumbers() throws(JournalError) -> [Int] {
        try store.blocking("cannot list the instances of session \(sessionID.prefix(8))…") {
            try slot.query("SELECT instance FROM fusion_instances WHERE session_id = \(sessionID) ORDER BY instance").await().rows.map {
                try $0.decode(Int.self)
            }
        }
    }

    func end() {
        _ = try? slot.query("DELETE FROM fusion_sessions WHERE id = \(sessionID) AND epoch = \(epoch)").await()
        store.unlock(sessionID, epoch: epoch)
    }

    func release() {
        // Said before the lock goes: whoever takes the session next needs no poison check.
        let said = slot.query("UPDATE fusion_sessions SET released = true WHERE id = \(sessionID) AND epoch = \(epoch)")
        _ = try? said.await(timeout: .seconds(1))
        store.unlock(sessionID, epoch: epoch)
    }

    /// The failure of a write that found the session's epoch moved on.
    func fenced(_ name: String) -> JournalError {
        JournalError(
            path: name, "another bridge has taken this session over (its epoch is past \(epoch)): this bridge may not write to it",
            fenced: true)
    }
}
