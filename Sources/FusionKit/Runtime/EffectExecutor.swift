/// Where the effects of an instance on a manual clock run: a queue of jobs that only
/// `drain()` runs, on the calling thread. Such an instance's effects are tasks that
/// prefer this executor (`Task(executorPreference:)`), so everything they do between
/// two waits is a job here: when the clock wakes a sleeper, or a host answers a request,
/// its task is enqueued here, and `Store.settle` drains until every effect is parked
/// again. No real-time wait, no polling, whatever the machine's load: the effects'
/// progress is the caller's own work.
///
/// Two threads may drain at once (two calls on one instance): each runs the jobs it
/// takes. One that finds the queue empty while another thread still runs a job returns
/// without waiting for it (the other drain finishes what it started, and a wait could
/// deadlock: that job may need what this caller holds, such as Python's GIL), and says
/// so, so that the caller does not take that effect for one that cannot settle.
public final class EffectExecutor: TaskExecutor, @unchecked Sendable {
    // The core's one lock type (no Synchronization: see ConditionLock). Guarded by it:
    private let lock = ConditionLock()
    private var queue: [UnownedJob] = []
    /// The threads running a job of this executor now, one entry per job.
    private var running: [ThreadIdentity] = []

    /// An executor with nothing queued.
    public init() {}

    /// Queues a job of an effect (its task was woken, or started); `drain()` runs it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.withLock { queue.append(job) }
    }

    /// Runs queued jobs, and those they queue, until there are none. Returns false when
    /// another thread was still running a job then (its effects are that drain's).
    @discardableResult
    public func drain() -> Bool {
        let executor = asUnownedTaskExecutor()
        let me = ThreadIdentity.current
        lock.lock()
        while !queue.isEmpty {
            let job = queue.removeFirst()
            running.append(me)
            lock.unlock()
            job.runSynchronously(on: executor)
            lock.lock()
            if let index = running.firstIndex(of: me) { running.remove(at: index) }
        }
        let alone = !running.contains { $0 != me }
        lock.unlock()
        return alone
    }
}
