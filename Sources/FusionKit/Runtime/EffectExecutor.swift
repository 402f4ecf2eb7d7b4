import Synchronization

/// Where the effects of an instance on a manual clock run: a queue of jobs that only
/// `drain()` runs, on the calling thread. Such an instance's effects are tasks that
/// prefer this executor (`Task(executorPreference:)`), so everything they do between
/// two waits is a job here: when the clock wakes a sleeper, or a host answers a request,
/// its task is enqueued here, and `Store.settle` drains until every effect is parked
/// again. No real-time wait, no polling, whatever the machine's load: the effects'
/// progress is the caller's own work.
public final class EffectExecutor: TaskExecutor, Sendable {
    private let queue = Mutex<[UnownedJob]>([])

    /// An executor with nothing queued.
    public init() {}

    /// Queues a job of an effect (its task was woken, or started); `drain()` runs it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.append(job) }
    }

    /// Runs queued jobs, and those they queue, until there are none.
    public func drain() {
        let executor = asUnownedTaskExecutor()
        while let job = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            job.runSynchronously(on: executor)
        }
    }
}
