import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The crash journal's file (docs/reliability.md, "Crash-safe sessions"): a header line,
/// then one line per record, each `JSON CRC\n`, the JSON compact and a CRC-32 in eight
/// hex digits: of the header's bytes, and for a record, of its bytes going on from the
/// line before's (format 2), so that a line missing, moved or repeated is damage too
/// (format 1, each line's CRC its own, is still read and appended to). A record is appended and flushed to the disk
/// (`fdatasync`) before the host applies it, so after a crash the file holds everything
/// the instance was given. A process killed mid-append leaves a torn last line (no
/// newline, or a checksum that does not match): it is dropped with a warning and cut off
/// before the next append. A bad line anywhere else is damage, and the file is refused:
/// never read as something it is not.
public final class JournalFile: Sendable {
    public let path: String
    /// Open for appending while the journal is; a `JournalCommitter` syncs it. Another
    /// after `replace` (the file is a new one then).
    private let current: Atomic<Int32>
    var descriptor: Int32 { current.load(ordering: .acquiring) }
    /// The CRC of the last line written, which the next one's goes on from (format 2);
    /// nil in a file of format 1, whose lines each have their own. Held while a line is
    /// written, so that lines and their CRCs go in the same order.
    private let chain: LockedValue<UInt32?>

    /// What a journal held when it was opened.
    public struct Contents: Sendable {
        public var header: JSONValue
        public var records: [JSONValue]
        /// Why the last line was dropped, for a warning; nil when the file ended cleanly.
        public var droppedTail: String?

        public init(header: JSONValue, records: [JSONValue], droppedTail: String?) {
            self.header = header
            self.records = records
            self.droppedTail = droppedTail
        }
    }

    /// The format this build writes; the header's `"fusionJournal"`.
    public static let formatVersion = 2
    /// The formats this build reads: 1 (each line's CRC its own) and 2 (chained).
    static let readableFormats = 1...2

    /// Whether a journal with this header chains its lines' CRCs.
    private static func chains(_ header: JSONValue) -> Bool { (header["fusionJournal"]?.wholeValue ?? 1) >= 2 }

    /// Creates a new journal at `path` (replacing what is there) with `header`, flushed
    /// to disk before this returns.
    public init(creating path: String, header: JSONValue) throws(JournalError) {
        let descriptor = systemOpen(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JournalError(path: path, "cannot create it: \(Self.systemError())") }
        let headerCRC: UInt32
        do throws(JournalError) {
            try Self.lock(descriptor, path)
            guard ftruncate(descriptor, 0) == 0 else { throw JournalError(path: path, "cannot empty it: \(Self.systemError())") }
            headerCRC = try Self.writeLine(header, after: nil, to: descriptor, path: path)
            guard fdatasync(descriptor) == 0 else { throw JournalError(path: path, "cannot flush it to disk: \(Self.systemError())") }
        } catch {
            systemClose(descriptor)
            throw error
        }
        self.path = path
        current = Atomic(descriptor)
        chain = LockedValue(Self.chains(header) ? headerCRC : nil)
    }

    /// The header of the journal at `path`, read without opening it for writing (no lock
    /// taken): which library, feature and options it holds, before resuming it.
    public static func header(of path: String) throws(JournalError) -> JSONValue {
        let bytes: [UInt8]
        do throws(FileBytes.Failure) { bytes = try FileBytes.read(path) } catch {
            throw JournalError(path: path, error.reason)
        }
        return try parse(bytes, path: path).0.header
    }

    /// What the journal at `path` holds, read without opening it for writing (no lock
    /// taken, nothing cut off); nil when there is no file, or an empty one.
    public static func contents(of path: String) throws(JournalError) -> Contents? {
        guard access(path, F_OK) == 0 else { return nil }
        let bytes: [UInt8]
        do throws(FileBytes.Failure) { bytes = try FileBytes.read(path) } catch {
            throw JournalError(path: path, error.reason)
        }
        return bytes.isEmpty ? nil : try parse(bytes, path: path).0
    }

    /// Opens an existing journal: reads it, cuts off a torn last line, and keeps it open
    /// for appending. nil when there is no file, or an empty one, at `path`.
    public static func open(existing path: String) throws(JournalError) -> (file: JournalFile, contents: Contents)? {
        guard access(path, F_OK) == 0 else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path)
        } catch {
            throw JournalError(path: path, error.reason)
        }
        guard !bytes.isEmpty else { return nil }
        let (contents, goodLength, lastCRC) = try parseLines(bytes, path: path)
        let file = try JournalFile(appendingTo: path, keeping: goodLength, after: lastCRC)
        return (file, contents)
    }

    private init(appendingTo path: String, keeping length: Int, after lastCRC: UInt32?) throws(JournalError) {
        let descriptor = systemOpen(path, O_WRONLY | O_APPEND | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw JournalError(path: path, "cannot open it for writing: \(Self.systemError())") }
        do throws(JournalError) {
            try Self.lock(descriptor, path)
        } catch {
            systemClose(descriptor)
            throw error
        }
        // Cut a torn tail off before anything follows it.
        guard ftruncate(descriptor, off_t(length)) == 0, fdatasync(descriptor) == 0 else {
            let reason = Self.systemError()
            systemClose(descriptor)
            throw JournalError(path: path, "cannot cut off its torn last record: \(reason)")
        }
        self.path = path
        current = Atomic(descriptor)
        chain = LockedValue(lastCRC)
    }

    deinit { close() }

    /// Closes the file now, releasing its lock (another `JournaledInstance` may open it
    /// then); later appends fail. Closing again does nothing.
    public func close() {
        let descriptor = current.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 { systemClose(descriptor) }
    }

    /// Replaces the journal, atomically, by `header` and `records` (a checkpoint and what
    /// follows it): written to a new file beside it, flushed, renamed over it, and the
    /// folder flushed, so that a crash leaves the old journal or the new one, whole. The
    /// new file is locked before it takes the name. Call it with no append or sync of
    /// this journal under way (a committer's included): the old descriptor is closed.
    func replace(header: JSONValue, records: [JSONValue]) throws(JournalError) {
        let fresh = path + ".new"
        let descriptor = systemOpen(fresh, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JournalError(path: fresh, "cannot create it: \(Self.systemError())") }
        // The new file is in this build's format, whatever the old one's (a journal of
        // format 1 resumed here is chained from its first checkpoint on).
        let current = JSONValue.object(
            (header.members ?? []).map { $0.key == "fusionJournal" ? JSONMember($0.key, .integer(Self.formatVersion)) : $0 })
        var last: UInt32?
        do throws(JournalError) {
            try Self.lock(descriptor, fresh)
            last = try Self.writeLine(current, after: nil, to: descriptor, path: fresh)
            for record in records { last = try Self.writeLine(record, after: last, to: descriptor, path: fresh) }
            guard fdatasync(descriptor) == 0 else { throw JournalError(path: fresh, "cannot flush it to disk: \(Self.systemError())") }
            guard rename(fresh, path) == 0 else { throw JournalError(path: path, "cannot replace it by \(fresh): \(Self.systemError())") }
        } catch {
            systemClose(descriptor)
            unlink(fresh)
            throw error
        }
        chain.withLock { $0 = last }
        let old = self.current.exchange(descriptor, ordering: .acquiringAndReleasing)
        if old >= 0 {
            systemClose(old)
        } else if case let mine = self.current.exchange(-1, ordering: .acquiringAndReleasing), mine >= 0 {
            // Closed while the checkpoint was written (a committer's thread checkpointing
            // as `close` ran): the new file keeps the name, but not the lock, or reopening
            // the journal would find it held ("another process has it open").
            systemClose(mine)
        }
        Self.syncFolder(of: path)
    }

    /// Flushes the folder holding `path`, so that a rename in it is on the disk too.
    private static func syncFolder(of path: String) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = systemOpen(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        systemClose(descriptor)
    }

    /// One writer per journal: a second process resuming it would interleave records.
    /// The lock goes with the descriptor, so a crash releases it.
    private static func lock(_ descriptor: Int32, _ path: String) throws(JournalError) {
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            throw JournalError(path: path, errno == EWOULDBLOCK ? "another process has it open" : "cannot lock it: \(systemError())")
        }
    }

    /// Appends one record and waits until it is on the disk.
    public func append(_ record: JSONValue) throws(JournalError) {
        try appendWithoutSync(record)
        try sync()
    }

    /// Appends one record without waiting for the disk: it is durable only once a sync
    /// of this file (a `JournalCommitter`'s) has returned since.
    func appendWithoutSync(_ record: JSONValue) throws(JournalError) {
        let (descriptor, path) = (self.descriptor, self.path)
        try chain.withLock { (last: inout UInt32?) throws(JournalError) in
            let written = try Self.writeLine(record, after: last, to: descriptor, path: path)
            if last != nil { last = written }
        }
    }

    /// Waits until everything appended is on the disk.
    func sync() throws(JournalError) {
        guard fdatasync(descriptor) == 0 else { throw JournalError(path: path, "cannot flush it to disk: \(Self.systemError())") }
    }

    /// Writes `record`'s line, its CRC going on from `previous` (nil: its own); the CRC.
    @discardableResult
    private static func writeLine(_ record: JSONValue, after previous: UInt32?, to descriptor: Int32, path: String) throws(JournalError)
        -> UInt32
    {
        let text = record.jsonText
        let crc = CRC32.checksum(text.utf8, continuing: previous ?? 0)
        var line = Array(text.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: hex(crc).utf8)
        line.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < line.count {
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw JournalError(path: path, "cannot append to it: \(systemError())")
            }
            offset += written
        }
        return crc
    }

    // MARK: Reading

    /// The header and records of a journal's bytes, and the length of its good part.
    static func parse(_ bytes: [UInt8], path: String) throws(JournalError) -> (Contents, Int) {
        let (contents, goodLength, _) = try parseLines(bytes, path: path)
        return (contents, goodLength)
    }

    /// `parse`, and the CRC of the last good line, which the next goes on from (nil in
    /// format 1).
    private static func parseLines(_ bytes: [UInt8], path: String) throws(JournalError) -> (Contents, Int, UInt32?) {
        var lines: [(text: ArraySlice<UInt8>, end: Int, complete: Bool)] = []
        var start = 0
        while start < bytes.count {
            if let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                lines.append((bytes[start..<newline], newline + 1, true))
                start = newline + 1
            } else {
                lines.append((bytes[start...], bytes.count, false))
                start = bytes.count
            }
        }
        var values: [JSONValue] = []
        var goodLength = 0
        var droppedTail: String?
        // Format 2: the CRC the next line's goes on from, once the header says so.
        var chain: UInt32?
        for (number, line) in lines.enumerated() {
            let isLast = number == lines.count - 1
            let problem: String?
            var value: JSONValue?
            var outOfPlace = false
            if !line.complete {
                problem = "it does not end with a newline"
            } else {
                switch record(line.text, after: chain) {
                case .success(let (parsed, crc)):
                    value = parsed
                    problem = nil
                    if number == 0 {
                        try checkHeader(parsed, path: path)  // its format says how the lines after it read
                        chain = chains(parsed) ? crc : nil
                    } else if chain != nil {
                        chain = crc
                    }
                case .failure(let failure):
                    problem = failure.reason.text
                    outOfPlace = failure.outOfPlace
                }
            }
            if let problem {
                // Only the last line can be torn by a crash; the header must be whole. A
                // whole line that does not go on from the one before is no tear, even last:
                // the line before it is missing, moved or changed.
                guard isLast, number > 0, !outOfPlace else {
                    throw JournalError(
                        path: path, "line \(number + 1) is damaged (\(problem)); the journal is not read rather than read wrong")
                }
                droppedTail =
                    "the last record (line \(number + 1)) was torn, most likely by a crash while it was written (\(problem)): it is dropped"
                break
            }
            values.append(value!)
            goodLength = line.end
        }
        guard let header = values.first else { throw JournalError(path: path, "it has no header line") }
        return (Contents(header: header, records: Array(values.dropFirst()), droppedTail: droppedTail), goodLength, chain)
    }

    private static func checkHeader(_ header: JSONValue, path: String) throws(JournalError) {
        guard let written = header["fusionJournal"] else {
            throw JournalError(path: path, "it is not a FusionKit journal (its first line has no \"fusionJournal\")")
        }
        // 2 and 2.0 are one number (docs/rules/journal-format.md); `true` or "2" is none.
        guard let format = written.wholeValue else {
            throw JournalError(path: path, "its \"fusionJournal\" is \(written.jsonText), not a format number")
        }
        guard readableFormats.contains(format) else {
            let readable = "\(readableFormats.lowerBound) to \(readableFormats.upperBound)"
            throw JournalError(path: path, "it is in journal format \(format); this build reads formats \(readable)")
        }
    }

    /// Why a line was not read; `outOfPlace` when it is whole (JSON, and its own CRC
    /// would do) but its CRC does not go on from the line before it.
    private struct LineFailure: Error {
        let reason: JournalError.Reason
        var outOfPlace = false
    }

    /// One line, checked: `JSON CRC`, the CRC going on from `previous` (nil: its own);
    /// the value and the CRC.
    private static func record(_ line: ArraySlice<UInt8>, after previous: UInt32?) -> Result<(JSONValue, UInt32), LineFailure> {
        guard line.count > 9, line[line.endIndex - 9] == UInt8(ascii: " ") else {
            return .failure(LineFailure(reason: "it has no checksum"))
        }
        let text = line[line.startIndex..<(line.endIndex - 9)]
        let written = String(decoding: line[(line.endIndex - 8)...], as: UTF8.self)
        let crc = CRC32.checksum(text, continuing: previous ?? 0)
        guard hex(crc) == written else {
            if previous != nil, hex(CRC32.checksum(text)) == written || (try? JSONParser.parse(Array(text))) != nil {
                return .failure(
                    LineFailure(
                        reason: "its checksum does not match: it was changed, or a line before it was removed, moved or changed",
                        outOfPlace: true))
            }
            return .failure(LineFailure(reason: "its checksum does not match"))
        }
        do {
            return .success((try JSONParser.parse(Array(text)), crc))
        } catch {
            return .failure(LineFailure(reason: JournalError.Reason("its checksum matches but it is not JSON: \(error)")))
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }
}

private func systemClose(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #elseif canImport(Darwin)
        _ = Darwin.close(descriptor)
    #endif
}

private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.open(path, flags, mode)
    #else
        Darwin.open(path, flags, mode)
    #endif
}
