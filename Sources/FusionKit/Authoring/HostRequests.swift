/// The id of a request being awaited, and whether its task was cancelled before the
/// id was known: the two can race, from different threads.
private final class SubmittedID: @unchecked Sendable {
    private let lock = ConditionLock()
    private var id: UInt64?
    private var cancelled = false

    /// Records the id; true when the task was already cancelled (cancel it now).
    func set(_ value: UInt64) -> Bool {
        lock.withLock {
            id = value
            return cancelled
        }
    }

    /// Marks the task cancelled; the id to cancel, when it is known.
    func cancel() -> UInt64? {
        lock.withLock {
            cancelled = true
            return id
        }
    }
}

/// One instance's open requests, and the way their events reach the host.
public final class HostRequests: @unchecked Sendable {
    /// Told each event as JSON bytes: `{"event":"request",…}` or `{"event":"cancel",…}`.
    public typealias Handler = @Sendable ([UInt8]) -> Void

    private struct Open {
        let kind: String
        /// Decodes a result and returns the thunk that resumes the waiting effect;
        /// throws, resuming nothing, when the result does not fit.
        let accept: (JSONValue) throws(FusionError) -> @Sendable () -> Void
        let reject: @Sendable (any Error) -> Void
    }

    private let lock = ConditionLock()
    private var mode: RequestMode
    private var handler: Handler?
    private var handlerGeneration = 0
    private var inFlight: [(generation: Int, thread: ThreadIdentity)] = []
    private var queued: [[UInt8]] = []
    private var open: [UInt64: Open] = [:]
    private var nextID: UInt64 = 0
    private var closed = false
    /// Set as close() starts, before it empties `open`: an answer racing with it is then
    /// told the instance is going, not that its request is unknown.
    private var closing = false

    /// No open requests; `mode` says whether built-in answers are used or the host is asked.
    public init(mode: RequestMode = .builtin) {
        self.mode = mode
    }

    /// How many requests wait for an answer from the host.
    public var openCount: Int { lock.withLock { open.count } }

    /// Whether `close()` has begun: the instance is being destroyed.
    public var isClosed: Bool { lock.withLock { closed || closing } }

    /// Who answers now: the library itself (`.builtin`) or the host (`.host`).
    public var currentMode: RequestMode { lock.withLock { mode } }

    /// Asks for work and waits for the answer.
    public func request<Response>(_ request: HostRequest<Response>) async throws -> Response {
        if currentMode == .builtin {
            guard let builtin = request.builtin else {
                throw HostRequestError.noAnswer(request.kind)
            }
            return try await builtin()
        }
        let submitted = SubmittedID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                let outcome = open(request) { answer in
                    switch answer {
                    case .success(let value)?: continuation.resume(returning: value)
                    case .failure(let error)?: continuation.resume(throwing: error)
                    case nil: continuation.resume(throwing: CancellationError())
                    }
                }
                let id: UInt64
                switch outcome {
                case .opened(let opened): id = opened
                case .closed: continuation.resume(throwing: CancellationError()); return
                case .full(let error): continuation.resume(throwing: error); return
                }
                // Cancelled while submitting: the handler below found no id yet.
                if submitted.set(id) { cancel(id) }
            }
        } onCancel: {
            if let id = submitted.cancel() { cancel(id) }
        }
    }

    /// Submits a request whose answer is handed to `deliver` on the answering thread
    /// (inside `respond` or `fail`), for `Effect.request`; `deliver` gets nil when the
    /// request is cancelled (by `cancel(_:)` or `close()`). Returns the request's id, to
    /// cancel it with; nil when closed. When `FusionLimit.hostRequests` requests are
    /// open already, the request is not made: `deliver` gets a failure that says so,
    /// at once, and nil is returned.
    public func submit<Response>(
        _ request: HostRequest<Response>, deliver: @escaping @Sendable (Result<Response, HostRequestError>?) -> Void
    ) -> UInt64? {
        switch open(request, deliver: deliver) {
        case .opened(let id): return id
        case .closed: return nil
        case .full(let error):
            deliver(.failure(error))
            return nil
        }
    }

    private enum Opened { case opened(UInt64), closed, full(HostRequestError) }

    /// `submit` without delivering the refusal, which `request` throws instead.
    private func open<Response>(
        _ request: HostRequest<Response>, deliver: @escaping @Sendable (Result<Response, HostRequestError>?) -> Void
    ) -> Opened {
        let kind = request.kind
        lock.lock()
        guard !closed else {
            lock.unlock()
            return .closed
        }
        // A feature that asks faster than its host answers must not grow this without bound.
        let limit = FusionLimit.hostRequests.value
        guard open.count < limit else {
            let count = open.count
            lock.unlock()
            return .full(
                HostRequestError(
                    FusionLimit.hostRequests.exceeded("request \"\(kind)\" not made: \(count) host requests of this instance are open")
                        .message))
        }
        nextID += 1
        let id = nextID
        open[id] = Open(
            kind: kind,
            accept: { (json) throws(FusionError) in
                let value: Response
                do {
                    value = try JSONValueDecoder().decode(Response.self, from: json)
                } catch {
                    throw FusionError(.invalidResponse, "the response to request \(id) (\"\(kind)\") does not fit: \(error)")
                }
                return { deliver(.success(value)) }
            },
            reject: { error in deliver((error as? HostRequestError).map { .failure($0) }) })
        lock.unlock()
        emit(
            Self.event(["event": "request", "id": .integer(Int(truncatingIfNeeded: id)), "kind": .string(kind), "payload": request.payload])
        )
        return .opened(id)
    }

    /// The requester stopped waiting: close the request and tell the host.
    public func cancel(_ id: UInt64) {
        let entry = lock.withLock { open.removeValue(forKey: id) }
        guard let entry else { return }
        emit(Self.event(["event": "cancel", "id": .integer(Int(truncatingIfNeeded: id))]))
        entry.reject(CancellationError())
    }

    /// Answers request `id` with a result.
    public func respond(_ id: UInt64, with result: JSONValue) throws(FusionError) {
        lock.lock()
        guard let entry = open[id] else {
            lock.unlock()
            throw unknown(id)
        }
        let resume: @Sendable () -> Void
        do {
            resume = try entry.accept(result)
        } catch {
            lock.unlock()
            throw error
        }
        open.removeValue(forKey: id)
        lock.unlock()
        resume()
    }

    /// Answers request `id` with an error.
    public func fail(_ id: UInt64, message: String) throws(FusionError) {
        let entry = lock.withLock { open.removeValue(forKey: id) }
        guard let entry else { throw unknown(id) }
        entry.reject(HostRequestError(message))
    }

    /// Sets (or with nil removes) the handler, and selects host mode. Queued events go
    /// to the new handler. When this returns, the old handler is not running (unless
    /// this is called from inside it) and will not be called again.
    public func setHandler(_ newHandler: Handler?) {
        lock.lock()
        handler = newHandler
        mode = .host
        handlerGeneration += 1
        let generation = handlerGeneration
        while inFlight.contains(where: { $0.generation < generation && $0.thread != .current }) {
            lock.wait()
        }
        var pending: [[UInt8]] = []
        if newHandler != nil {
            pending = queued
            queued.removeAll()
        }
        lock.unlock()
        if let newHandler {
            for event in pending { call(newHandler, generation: generation, event) }
        }
    }

    /// The next queued event, for hosts that poll.
    public func poll() -> [UInt8]? {
        lock.withLock { queued.isEmpty ? nil : queued.removeFirst() }
    }

    /// Cancels every open request, telling the host, and stops all events. For the
    /// instance's destruction: when this returns no handler is running or will run.
    public func close() {
        lock.lock()
        closing = true
        let entries = open.sorted { $0.key < $1.key }
        open.removeAll()
        lock.unlock()
        for (id, entry) in entries {
            emit(Self.event(["event": "cancel", "id": .integer(Int(truncatingIfNeeded: id))]))
            entry.reject(CancellationError())
        }
        lock.lock()
        closed = true
        handler = nil
        handlerGeneration += 1
        queued.removeAll()
        while inFlight.contains(where: { $0.thread != .current }) { lock.wait() }
        lock.unlock()
    }

    private func emit(_ event: [UInt8]) {
        lock.lock()
        guard !closed || handler != nil else {
            lock.unlock()
            return
        }
        guard let current = handler else {
            queued.append(event)
            lock.unlock()
            return
        }
        let generation = handlerGeneration
        lock.unlock()
        call(current, generation: generation, event)
    }

    private func call(_ handler: Handler, generation: Int, _ event: [UInt8]) {
        let me = ThreadIdentity.current
        lock.lock()
        guard generation == handlerGeneration else {
            // Replaced meanwhile: the new handler (or the queue) gets it.
            if let replacement = self.handler {
                let newGeneration = handlerGeneration
                lock.unlock()
                call(replacement, generation: newGeneration, event)
            } else {
                if !closed { queued.append(event) }
                lock.unlock()
            }
            return
        }
        inFlight.append((generation, me))
        lock.unlock()
        handler(event)
        lock.lock()
        if let index = inFlight.firstIndex(where: { $0.generation == generation && $0.thread == me }) {
            inFlight.remove(at: index)
        }
        lock.broadcast()
        lock.unlock()
    }

    private func unknown(_ id: UInt64) -> FusionError {
        FusionError(.unknownRequest, "there is no open request \(id): it was never made, was already answered, or was cancelled")
    }

    private static func event(_ value: JSONValue) -> [UInt8] { JSONWriter.serialize(value) }
}
