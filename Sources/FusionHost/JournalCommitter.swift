import CFileSync
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Group commit for crash journals (docs/reliability.md, "Group commit"): the records
/// that journals of many sessions write while one sync runs share the next sync,
/// instead of a sync each.
///
/// A journal writes its record (the bytes reach the kernel) and hands the committer a
/// completion. The committer's thread takes every record handed to it since its last
/// sync began, makes them durable with one call, and then calls their completions in
/// the order they came, each told whether its record is on the disk. The promise is the
/// file journal's: no completion says "on disk" before the record is. One call covers
/// them all because every record waiting was written before the call began: with one
/// journal that is `fdatasync`, with several `syncfs` (Linux), which flushes the whole
/// filesystem the journals are on. Elsewhere each journal is synced in turn.
public final class JournalCommitter: Sendable {
    /// How many records and syncs so far: records per sync is what sharing saved.
    public struct Counts: Sendable, Equatable {
        public var records = 0
        public var syncs = 0
    }

    /// A record written and waiting to be synced.
    struct Waiting {
        let descriptor: Int32
        let path: String
        let done: @Sendable (JournalError?) -> Void
    }

    private struct Queue {
        var waiting: [Waiting] = []
        var stopping = false
        var counts = Counts()
    }

    /// What the committer's thread shares with the committer, so that the thread keeps
    /// no reference to the committer itself (its deinit stops the thread).
    private final class Shared: Sendable {
        let queue = LockedValue(Queue())
        /// Signalled when the queue stops being empty (and to stop).
        let work = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()

    /// Starts the committer's thread.
    public init(label: String = "fusion.journal.commit") {
        let shared = self.shared
        DispatchQueue(label: label).async { Self.run(shared) }
    }

    deinit { stop() }

    /// Syncs what is waiting, then ends the thread; records handed over later are
    /// refused (their journals sync them one at a time). Idempotent.
    public func stop() {
        let wasRunning = shared.queue.withLock { queue in
            defer { queue.stopping = true }
            return !queue.stopping
        }
        guard wasRunning else { return }
        shared.work.signal()
        shared.finished.wait()
    }

    /// Records and syncs so far.
    public var counts: Counts { shared.queue.withLock { $0.counts } }

    /// Hands over a record already written to `descriptor` (the journal at `path`);
    /// `done` is called once it is on the disk (nil) or cannot be put there (why), on
    /// the committer's thread, after the completions of everything handed over before it.
    /// False, with `done` never called, once the committer is stopped: the caller syncs.
    func commit(descriptor: Int32, path: String, done: @escaping @Sendable (JournalError?) -> Void) -> Bool {
        let waiting = Waiting(descriptor: descriptor, path: path, done: done)
        let (accepted, wake) = shared.queue.withLock { queue -> (Bool, Bool) in
            guard !queue.stopping else { return (false, false) }
            queue.waiting.append(waiting)
            queue.counts.records += 1
            return (true, queue.waiting.count == 1)
        }
        if wake { shared.work.signal() }
        return accepted
    }

    /// The thread: take everything waiting, sync it once, complete it; until stopped.
    private static func run(_ shared: Shared) {
        while true {
            shared.work.wait()
            let (batch, stopping) = shared.queue.withLock { queue -> ([Waiting], Bool) in
                defer { queue.waiting = [] }
                if !queue.waiting.isEmpty { queue.counts.syncs += 1 }
                return (queue.waiting, queue.stopping)
            }
            if !batch.isEmpty { sync(batch) }
            if stopping { break }
        }
        shared.finished.signal()
    }

    /// Makes every record of `batch` durable with as few calls as the system allows,
    /// then calls their completions in order.
    private static func sync(_ batch: [Waiting]) {
        var failures: [Int32: String] = [:]
        var descriptors: [Int32] = []
        for waiting in batch where !descriptors.contains(waiting.descriptor) { descriptors.append(waiting.descriptor) }
        if descriptors.count > 1, fusion_sync_filesystem(descriptors[0]) == 0 {
            // One call flushed them all.
        } else if descriptors.count > 1, errno != ENOSYS {
            let reason = systemError()
            for descriptor in descriptors { failures[descriptor] = reason }
        } else {
            for descriptor in descriptors where fdatasync(descriptor) != 0 { failures[descriptor] = systemError() }
        }
        for waiting in batch {
            waiting.done(failures[waiting.descriptor].map { JournalError(path: waiting.path, "cannot flush it to disk: \($0)") })
        }
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }
}
