import NIOCore

/// A task executor that runs its jobs on one NIO event loop: a connection's reading task
/// prefers its channel's loop (`withTaskExecutorPreference`), so that a frame read there
/// resumes the task on the same thread, and its `ok` is written there, with no hop to the
/// cooperative pool and back. On two cores such hops, and the threads they wake, were
/// most of an input's time at the tail (docs/performance.md, "The web bridge's tail").
///
/// The jobs run between the loop's I/O, so what a connection does between two awaits
/// holds up the loop's other sockets, as it held up a thread of the pool before: what
/// may wait or run long runs elsewhere (a take-over and the clock's effects on threads of
/// their own), and a bridge whose calls may block (a sandboxed module's, for its time
/// limit; a journal's, waiting for its store) handles its messages on the pool (WebBridge).
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
