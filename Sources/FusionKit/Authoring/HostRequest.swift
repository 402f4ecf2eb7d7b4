#if hasFeature(Embedded)
    /// What a host's answer to a request is read as: under Embedded Swift, which has no
    /// `Codable`, a `JSONCoded` type (what `@JSONCoded` makes, so a type marked with it
    /// serves both builds).
    public typealias HostResponse = JSONCoded & Sendable
#else
    /// What a host's answer to a request is read as: natively any `Decodable` type (a
    /// `@JSONCoded` one is, so it serves both builds).
    public typealias HostResponse = Decodable & Sendable
#endif

/// Work only the front end can do, asked for by a feature and answered by the host
/// through the C ABI: later, once or never, in any order.
///
/// A feature asks from an effect, and turns the answer into an action:
///
///     let fetch = HostRequest<PetEntity>(
///         kind: "fetchPet", payload: ["profileID": "baby-1"],
///         answer: ProfileSamples.pet, after: .milliseconds(300), on: clock)
///     return .request(fetch, id: "profile.pet") { result in
///         switch result {
///         case .success(let pet): return .petComplete(pet)
///         case .failure(let error): return .loadFailed("\(error)")
///         }
///     }
///
/// Cancelling the effect cancels the request, and the host is told. Without a host
/// (requests mode "builtin": demos, tests) the library answers itself with `answer`,
/// once `after` has passed on the clock; that form builds under Embedded Swift too.
public struct HostRequest<Response: HostResponse>: Sendable {
    /// What to do, e.g. "fetchPet"; the host dispatches on it.
    public var kind: String
    /// The details, as JSON.
    public var payload: JSONValue
    /// The library's own answer when no host answers (mode "builtin"), as data: the value,
    /// given once `sampleDelay` has passed on `sampleClock`. Nil: the request fails
    /// unless a host answers it.
    public var sample: Response?
    /// How long the library's own answer takes.
    public var sampleDelay: Duration = .zero
    /// The clock the library's own answer waits on (the feature's environment's).
    public var sampleClock: (any FusionClock)?

    /// A request of `kind` with its `payload`, which the library answers with `answer`
    /// after `delay` on `clock` when no host does (mode "builtin"). Builds both ways.
    public init(kind: String, payload: JSONValue = [:], answer: Response, after delay: Duration, on clock: any FusionClock) {
        self.kind = kind
        self.payload = payload
        sample = answer
        sampleDelay = delay
        sampleClock = clock
        #if !hasFeature(Embedded)
            builtin = {
                try await clock.sleep(for: delay); return answer
            }
        #endif
    }

    #if !hasFeature(Embedded)
        /// How the library answers by itself when the instance is not in "host" mode
        /// (demos, tests), as async work. Nil: the request fails unless a host answers it.
        /// Native only: Embedded Swift has no Swift concurrency (use `answer:after:on:`).
        public var builtin: (@Sendable () async throws -> Response)?

        /// A request of `kind` with its `payload`, and optionally how to answer it without a
        /// host, as async work (native only).
        public init(kind: String, payload: JSONValue = [:], builtin: (@Sendable () async throws -> Response)? = nil) {
            self.kind = kind
            self.payload = payload
            self.builtin = builtin
        }
    #else
        /// A request of `kind` with its `payload` that only a host can answer.
        public init(kind: String, payload: JSONValue = [:]) {
            self.kind = kind
            self.payload = payload
        }
    #endif
}

/// The host said the work could not be done; `message` is its words.
public struct HostRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the work could not be done, as the host said it (`fk_fail_request`).
    public var message: String
    /// An error with the host's words.
    public init(_ message: String) { self.message = message }
    /// The host's words.
    public var description: String { message }

    /// What a request with no answer of the library's own fails with when no host answers.
    static func noAnswer(_ kind: String) -> HostRequestError {
        HostRequestError("no host answers \"\(kind)\" requests, and the library has no answer of its own")
    }
}
