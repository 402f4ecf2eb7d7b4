/// Work a feature asks for, as a value: run async work that feeds actions back, cancel
/// work by id, or follow up at once with another action.
///
/// Effects run after the action that returned them has been applied, outside the
/// instance's lock. Everything still running is cancelled when the instance goes away.
public struct Effect<Action: Sendable>: Sendable {
    @usableFromInline enum Work: Sendable {
        /// An action applied right after the current one, within the same input.
        case send(Action)
        #if !hasFeature(Embedded)
            case run(id: EffectID?, cancelInFlight: Bool, body: @Sendable (Send<Action>) async -> Void)
        #endif
        /// `action` after `timer.delay` on `timer.clock`, once or (repeating) until cancelled:
        /// time as data, which the store schedules on the feature's clock.
        case timer(EffectTimer, Action)
        case cancel(EffectID)
        #if !hasFeature(Embedded)
            /// Work asked of the host. The store submits it after the current input, and the
            /// answer's action is applied inside the host's fk_respond/fk_fail_request call,
            /// so answers are applied in the order the host gives them. In "builtin" mode
            /// `builtin` runs instead, as an ordinary effect.
            case request(
                id: EffectID?, submit: @Sendable (HostRequests, @escaping @Sendable (Action) -> Void) -> UInt64?,
                builtin: @Sendable (Send<Action>) async -> Void)
        #else
            /// Work asked of the host, as data the WebAssembly module's instance keeps
            /// (Wasm/Runtime): the module submits it, and applies the answer's action when
            /// the host answers, or the library's own answer when its time has come.
            case request(EffectRequest<Action>)
        #endif
    }

    @usableFromInline let work: [Work]

    @usableFromInline init(work: [Work]) { self.work = work }

    // Inlinable: compiled in the feature's module for its own Action, instead of a
    // generic getter that looks up Effect<Action>'s metadata on every input.
    /// No effect.
    @inlinable public static var none: Effect { Effect(work: []) }

    /// True when there is nothing to do.
    public var isNone: Bool { work.isEmpty }

    /// Applies `action` right after the current one, as part of the same change. The
    /// way a child feature reports to its parent (a delegate action).
    public static func send(_ action: Action) -> Effect { Effect(work: [.send(action)]) }

    // Async work and host requests need Swift concurrency, which Embedded Swift lacks here.
    #if !hasFeature(Embedded)
        /// Runs `body` concurrently; whatever it passes to `send` is applied as an action.
        /// With an `id` it can be cancelled; `cancelInFlight` cancels earlier work with the
        /// same id first (a debounce, a restarted fetch).
        public static func run(
            id: EffectID? = nil, cancelInFlight: Bool = false,
            _ body: @escaping @Sendable (Send<Action>) async -> Void
        ) -> Effect {
            Effect(work: [.run(id: id, cancelInFlight: cancelInFlight, body: body)])
        }

        /// Asks the host for work and applies `then` to its answer: a result, or the host's
        /// error. Cancelling `id` (or dismissing whatever owns it) cancels the request, and the
        /// host is told. The answer is applied while the host's answering call runs, so
        /// answers land in the order the host gives them. Without a host (mode "builtin"),
        /// the request's `builtin` answer is used after its own delay.
        public static func request<Response>(
            _ request: HostRequest<Response>, id: EffectID? = nil,
            then transform: @escaping @Sendable (Result<Response, HostRequestError>) -> Action
        ) -> Effect {
            Effect(work: [
                .request(
                    id: id,
                    submit: { host, deliver in
                        host.submit(request) { answer in
                            // nil: cancelled, by the effect's owner; nothing to apply.
                            if let answer { deliver(transform(answer)) }
                        }
                    },
                    builtin: { send in
                        guard let builtin = request.builtin else {
                            send(transform(.failure(.noAnswer(request.kind))))
                            return
                        }
                        do {
                            send(transform(.success(try await builtin())))
                        } catch is CancellationError {
                            return
                        } catch let error as HostRequestError {
                            send(transform(.failure(error)))
                        } catch {
                            send(transform(.failure(HostRequestError("\(error)"))))
                        }
                    })
            ])
        }

    #else
        /// Asks the host for work and applies `then` to its answer: a result, or the host's
        /// error. Cancelling `id` cancels the request, and the host is told. Without a host
        /// (mode "builtin"), the request's own answer is applied once its time has passed.
        public static func request<Response>(
            _ request: HostRequest<Response>, id: EffectID? = nil,
            then transform: @escaping @Sendable (Result<Response, HostRequestError>) -> Action
        ) -> Effect {
            Effect(work: [
                .request(
                    EffectRequest(
                        id: id, kind: request.kind, payload: request.payload,
                        answer: { (json) throws(JSONCodingError) in transform(.success(try Response(json: json))) },
                        failure: { error in transform(.failure(error)) },
                        sample: request.sample.map { transform(.success($0)) }, sampleDelay: request.sampleDelay))
            ])
        }
    #endif

    /// Applies `action` once `delay` has passed on `clock` (the environment's clock, which a
    /// test or a host moves by hand), unless cancelled first. `cancelInFlight` cancels
    /// earlier work with the same id (a restarted countdown).
    public static func after(
        _ delay: Duration, on clock: any FusionClock, id: EffectID? = nil, cancelInFlight: Bool = false, send action: Action
    ) -> Effect {
        Effect(work: [.timer(EffectTimer(delay: delay, clock: clock, id: id, cancelInFlight: cancelInFlight, repeats: false), action)])
    }

    /// Applies `action` every `interval` on `clock` until the effect is cancelled (by `id`,
    /// or with the instance): a live scan, a poll. A new one with the same id replaces
    /// the old (`cancelInFlight`).
    public static func every(
        _ interval: Duration, on clock: any FusionClock, id: EffectID, cancelInFlight: Bool = true, send action: Action
    ) -> Effect {
        Effect(work: [.timer(EffectTimer(delay: interval, clock: clock, id: id, cancelInFlight: cancelInFlight, repeats: true), action)])
    }

    /// Cancels every running effect started with `id`. Actions they send afterwards are dropped.
    public static func cancel(id: EffectID) -> Effect { Effect(work: [.cancel(id)]) }

    /// All of these, in order.
    public static func merge(_ effects: Effect...) -> Effect { merge(effects) }

    /// All of these, in order (for a list built at run time).
    public static func merge(_ effects: [Effect]) -> Effect { Effect(work: effects.flatMap { $0.work }) }

    /// The same work, with its actions wrapped for a parent feature: how a child's
    /// effects become the parent's.
    public func map<Parent: Sendable>(_ transform: @escaping @Sendable (Action) -> Parent) -> Effect<Parent> {
        Effect<Parent>(
            work: work.map { item in
                switch item {
                case .send(let action):
                    return .send(transform(action))
                #if !hasFeature(Embedded)
                    case .run(let id, let cancelInFlight, let body):
                        return .run(id: id, cancelInFlight: cancelInFlight) { send in
                            await body(Send { action in send(transform(action)) })
                        }
                #endif
                case .timer(let timer, let action):
                    return .timer(timer, transform(action))
                case .cancel(let id):
                    return .cancel(id)
                #if !hasFeature(Embedded)
                    case .request(let id, let submit, let builtin):
                        return .request(
                            id: id,
                            submit: { host, deliver in submit(host) { action in deliver(transform(action)) } },
                            builtin: { send in await builtin(Send { action in send(transform(action)) }) })
                #else
                    case .request(let request):
                        return .request(request.map(transform))
                #endif
                }
            })
    }
}

/// When a timed effect (`Effect.after`, `Effect.every`) fires, and on which clock.
public struct EffectTimer: Sendable {
    /// The wait before it fires, and between firings when it repeats.
    public let delay: Duration
    /// The clock it waits on: the feature's environment's.
    public let clock: any FusionClock
    /// Cancels it (`Effect.cancel(id:)`); nil: only the instance's end does.
    public let id: EffectID?
    /// Whether starting it first cancels what runs under the same id.
    public let cancelInFlight: Bool
    /// True for `every`: it fires until cancelled.
    public let repeats: Bool

    #if !hasFeature(Embedded)
        /// The work the native store runs for it: sleeps on the clock, then sends.
        func body<Action: Sendable>(_ action: Action) -> @Sendable (Send<Action>) async -> Void {
            { [clock, delay, repeats] send in
                while (try? await clock.sleep(for: delay)) != nil {
                    send(action)
                    if !repeats { return }
                }
            }
        }
    #endif
}

/// Identifies effects so they can be cancelled.
public struct EffectID: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The id as written: effects with equal ids are the same effect for cancelling.
    public let rawValue: String
    /// An id from text, e.g. `EffectID("wifi.scan")`.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// An id from a literal: `let scan: EffectID = "wifi.scan"`.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The id's text, for messages.
    public var description: String { rawValue }
}

/// Feeds an action from an effect back into its instance.
public struct Send<Action>: Sendable {
    let deliver: @Sendable (Action) -> Void

    /// A sender that hands each action to `deliver`; the runtime makes these, tests may too.
    public init(_ deliver: @escaping @Sendable (Action) -> Void) {
        self.deliver = deliver
    }

    /// Applies `action` to the instance, unless the effect was cancelled.
    public func callAsFunction(_ action: Action) { deliver(action) }
}
