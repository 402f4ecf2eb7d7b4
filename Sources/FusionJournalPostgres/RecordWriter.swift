import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The journals' appends through one connection (group commit, as the file journal's
/// committer does for its syncs): a record goes out at once while the connection has no
/// append in flight; those that come meanwhile wait, and go out together as one statement
/// (one commit) when it returns. Under load a commit then carries many inputs instead of
/// each input waiting for the commits queued before it.
///
/// Each record still lands or not on its own: the statement checks every record's epoch
/// against its session's row (fencing), and returns the sessions whose records landed. A
/// batch the server refuses as a whole (a record for an instance deleted meanwhile breaks
/// its foreign key) is written again a record at a time, so that only the bad record fails.
final class RecordWriter: Sendable {
    /// One record to append, and whether it landed (false: fenced).
    struct Record: Sendable {
        let session: String
        let instance: Int
        let seq: Int64
        let text: String
        let epoch: Int64
        let landed: EventLoopPromise<Bool>
    }

    private let slot: ConnectionSlot
    /// Whether an append is in flight, and the records waiting for it to return.
    private let state = NIOLockedValueBox<(busy: Bool, waiting: [Record])>((false, []))
    /// A batch is cut at this many records, or once its records' text passes this many
    /// bytes (a statement stays a few MiB at most); the rest go in the next.
    static let largestBatch = (records: 256, bytes: 4 << 20)

    init(slot: ConnectionSlot) { self.slot = slot }

    /// Appends a record; whether it landed.
    func append(session: String, instance: Int, seq: Int64, text: String, epoch: Int64) -> EventLoopFuture<Bool> {
        let record = Record(
            session: session, instance: instance, seq: seq, text: text, epoch: epoch, landed: slot.eventLoop.makePromise())
        let now = state.withLockedValue { state -> Bool in
            if state.busy {
                state.waiting.append(record)
                return false
            }
            state.busy = true
            return true
        }
        if now { write([record]) }
        return record.landed.futureResult
    }

    private func write(_ batch: [Record]) {
        statement(for: batch).whenComplete { result in
            switch result {
            case .success(let rows):
                // A session's records in one statement land or not together: the first
                // locks its row (FOR SHARE) until the commit, so its epoch cannot move
                // between them. (Only the text column is read back: this statement
                // path labels its binary integers as text.)
                let landed = Set(rows.compactMap { try? $0.decode(String.self) })
                self.next()
                for record in batch { record.landed.succeed(landed.contains(record.session)) }
            case .failure(let error) where batch.count > 1 && PostgresSessionStore.isServerRefusal(error):
                self.oneByOne(batch[...])
            case .failure(let error):
                self.next()
                for record in batch { record.landed.fail(error) }
            }
        }
    }

    /// Sends the records that waited, if any, else marks the connection idle.
    private func next() {
        let batch = state.withLockedValue { state -> [Record] in
            var taken: [Record] = []
            var bytes = 0
            var epochs: [String: Int64] = [:]
            for record in state.waiting {
                if taken.count == Self.largestBatch.records || (!taken.isEmpty && bytes >= Self.largestBatch.bytes) { break }
                // One session's records of two epochs (a copy being let go, and the copy a
                // rejoin took here again) never share a statement: it says which sessions'
                // records landed, and only one epoch's can.
                if let epoch = epochs.updateValue(record.epoch, forKey: record.session), epoch != record.epoch { break }
                taken.append(record)
                bytes += record.text.utf8.count
            }
            state.waiting.removeFirst(taken.count)
            if taken.isEmpty { state.busy = false }
            return taken
        }
        if !batch.isEmpty { write(batch) }
    }

    /// A refused batch, again a record at a time, in order; then the next batch.
    private func oneByOne(_ records: ArraySlice<Record>) {
        guard let record = records.first else { return next() }
        statement(for: [record]).whenComplete { result in
            record.landed.completeWith(result.map { $0.count == 1 })
            self.oneByOne(records.dropFirst())
        }
    }

    private func statement(for batch: [Record]) -> EventLoopFuture<[PostgresRow]> {
        if batch.count == 1, let record = batch.first {
            let binds = [
                PostgresData(string: record.session), PostgresData(int32: Int32(record.instance)), PostgresData(int64: record.seq),
                PostgresData(string: record.text), PostgresData(int64: record.epoch)
            ]
            return slot.execute(prepared: Self.insertOne, binds)
        }
        let binds = [
            PostgresData(array: batch.map { PostgresData(string: $0.session) }, elementType: .text),
            PostgresData(array: batch.map { PostgresData(int32: Int32($0.instance)) }, elementType: .int4),
            PostgresData(array: batch.map { PostgresData(int64: $0.seq) }, elementType: .int8),
            PostgresData(array: batch.map { PostgresData(string: $0.text) }, elementType: .text),
            PostgresData(array: batch.map { PostgresData(int64: $0.epoch) }, elementType: .int8)
        ]
        return slot.execute(prepared: Self.insertMany, binds)
    }

    /// One record: an input's only statement when the connection is idle. Prepared once per
    /// connection, so not parsed and planned at every input.
    static let insertOne = """
        INSERT INTO fusion_records (session_id, instance, seq, record)
        SELECT $1, $2, $3, $4 FROM fusion_sessions WHERE id = $1 AND epoch = $5 FOR SHARE RETURNING session_id
        """

    /// The records that waited, as arrays side by side.
    static let insertMany = """
        INSERT INTO fusion_records (session_id, instance, seq, record)
        SELECT r.session_id, r.instance, r.seq, r.record
        FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::text[], $5::bigint[]) AS r (session_id, instance, seq, record, epoch)
        JOIN fusion_sessions AS s ON s.id = r.session_id AND s.epoch = r.epoch FOR SHARE OF s RETURNING session_id
        """
}
