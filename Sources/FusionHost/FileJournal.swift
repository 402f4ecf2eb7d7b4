#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A journal in a file (docs/rules/journal-format.md): the embedded default, which needs
/// no database. With a `JournalCommitter` the records of every journal written during one
/// sync share the next one (group commit); without, each record is synced on its own.
public struct FileJournal: JournalLocation {
    public let path: String
    public let committer: JournalCommitter?

    public init(path: String, committer: JournalCommitter? = nil) {
        self.path = path
        self.committer = committer
    }

    public var name: String { path }

    public func openExisting() throws(JournalError) -> (store: any JournalStore, contents: JournalFile.Contents)? {
        guard let (file, contents) = try JournalFile.open(existing: path) else { return nil }
        return (Store(file: file, committer: committer), contents)
    }

    public func readHeader() throws(JournalError) -> JSONValue? {
        access(path, F_OK) == 0 ? try JournalFile.header(of: path) : nil
    }

    public func readContents() throws(JournalError) -> JournalFile.Contents? { try JournalFile.contents(of: path) }

    public func create(header: JSONValue) throws(JournalError) -> any JournalStore {
        Store(file: try JournalFile(creating: path, header: header), committer: committer)
    }

    public func delete() { unlink(path) }

    /// An open journal file, with the committer that syncs it.
    struct Store: JournalStore {
        let file: JournalFile
        let committer: JournalCommitter?

        var name: String { file.path }
        var defersAppends: Bool { committer != nil }

        func append(_ record: JSONValue) throws(JournalError) { try file.append(record) }

        func appendDeferred(_ record: JSONValue, durable: @escaping @Sendable (JournalError?) -> Void) throws(JournalError)
            -> DeferredAppend
        {
            guard let committer else {
                try file.append(record)
                return .now(nil)
            }
            try file.appendWithoutSync(record)
            if committer.commit(descriptor: file.descriptor, path: file.path, done: durable) { return .later }
            // The committer has stopped (the bridge is stopping): synced here.
            do throws(JournalError) { try file.sync() } catch { return .now(error) }
            return .now(nil)
        }

        func replace(header: JSONValue, records: [JSONValue]) throws(JournalError) {
            try file.replace(header: header, records: records)
        }

        func close() { file.close() }
    }
}
