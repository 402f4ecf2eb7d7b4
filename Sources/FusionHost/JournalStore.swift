/// Where one instance's journal is kept (docs/deploy.md, "Where journals live"): a file
/// (`FileJournal`, the embedded default) or rows of a database (FusionJournalPostgres).
/// A `JournaledInstance` writes its records through it and applies each one only once
/// the store says it is durable.
public protocol JournalStore: Sendable {
    /// Names the journal in messages: a path, or a database's session and instance.
    var name: String { get }
    /// Whether `appendDeferred` hands records over without waiting (group commit, or a
    /// database that answers later); false: every record is appended with `append`.
    var defersAppends: Bool { get }
    /// Appends a record and returns once it is durable.
    func append(_ record: JSONValue) throws(JournalError)
    /// Appends a record without waiting for it to be durable. Returns `.later` when
    /// `durable` will be called (on any thread, with nil or the failure), for one store's
    /// records in the order they were appended; or `.now` with what became of it when
    /// it was settled on the spot, and then `durable` is never called.
    func appendDeferred(_ record: JSONValue, durable: @escaping @Sendable (JournalError?) -> Void) throws(JournalError)
        -> DeferredAppend
    /// Replaces everything after the header by `records` (a checkpoint), durably.
    func replace(header: JSONValue, records: [JSONValue]) throws(JournalError)
    /// Closes it now; later calls fail. What was appended stays.
    func close()
}

extension JournalLocation {
    /// Puts the record at `index` (after the header) out of the way as a poison input
    /// (`{"poisoned": …}`): it killed the process that applied it, and is never applied
    /// again (docs/deploy.md, "Poison inputs").
    public func poison(recordAt index: Int) throws(JournalError) {
        guard let (store, contents) = try openExisting() else { return }
        defer { store.close() }
        guard contents.records.indices.contains(index) else { return }
        var records = contents.records
        records[index] = JournalRecord.poisoning(records[index]).json
        try store.replace(header: contents.header, records: records)
    }
}

/// What became of a record handed to `JournalStore.appendDeferred`.
public enum DeferredAppend: Sendable {
    /// Its completion comes later, through the callback.
    case later
    /// It was settled on the spot (nil: durable), and the callback will not be called.
    case now(JournalError?)
}

/// Where a journal is, before it is opened: resumes the one there, or starts one.
public protocol JournalLocation: Sendable {
    /// Names it in messages.
    var name: String { get }
    /// The journal there, opened for appending, with what it holds; nil when there is none.
    func openExisting() throws(JournalError) -> (store: any JournalStore, contents: JournalFile.Contents)?
    /// The header of the journal there, read without opening it for appending (which
    /// library wrote it, before resuming it); nil when there is none.
    func readHeader() throws(JournalError) -> JSONValue?
    /// What the journal there holds, read without opening it for appending; nil when
    /// there is none.
    func readContents() throws(JournalError) -> JournalFile.Contents?
    /// Starts a new journal there (replacing what is there) whose first line is `header`.
    func create(header: JSONValue) throws(JournalError) -> any JournalStore
    /// Deletes the journal there, if any (its session ended, or the instance was destroyed).
    func delete()
}
