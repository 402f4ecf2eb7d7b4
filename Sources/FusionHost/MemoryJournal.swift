/// A journal held in memory and written nowhere: what a journal holds, replayed in a
/// process that must not touch the real one (the bridge's poison check runs a session's
/// records in a child process first, which dies instead of the bridge if one traps).
public struct MemoryJournal: JournalLocation {
    public let contents: JournalFile.Contents

    public init(contents: JournalFile.Contents) {
        self.contents = contents
    }

    public var name: String { "a journal in memory" }

    public func openExisting() throws(JournalError) -> (store: any JournalStore, contents: JournalFile.Contents)? {
        (Discarding(), contents)
    }

    public func readHeader() throws(JournalError) -> JSONValue? { contents.header }
    public func readContents() throws(JournalError) -> JournalFile.Contents? { contents }
    public func create(header: JSONValue) throws(JournalError) -> any JournalStore { Discarding() }
    public func delete() {}

    /// Takes every record and keeps none.
    struct Discarding: JournalStore {
        var name: String { "a journal in memory" }
        var defersAppends: Bool { false }
        func append(_ record: JSONValue) throws(JournalError) {}
        func appendDeferred(_ record: JSONValue, durable: @escaping @Sendable (JournalError?) -> Void) throws(JournalError)
            -> DeferredAppend
        { .now(nil) }
        func replace(header: JSONValue, records: [JSONValue]) throws(JournalError) {}
        func close() {}
    }
}
