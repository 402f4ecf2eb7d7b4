#if hasFeature(Embedded)
    /// A host request as an effect carries it under Embedded Swift: what to ask, and how
    /// each way it can end becomes an action. The module's instance (Wasm/Runtime) opens
    /// it, tells the host, and applies `answer`'s or `failure`'s action when the host
    /// answers; without a host, `sample` once `sampleDelay` has passed on the clock.
    public struct EffectRequest<Action: Sendable>: Sendable {
        /// Cancels it (`Effect.cancel(id:)`), and tells the host.
        public let id: EffectID?
        /// What to do, e.g. "fetchPet".
        public let kind: String
        /// The details, as JSON.
        public let payload: JSONValue
        /// The action for the host's result; throws when the result does not fit.
        public let answer: @Sendable (JSONValue) throws(JSONCodingError) -> Action
        /// The action for the host's error.
        public let failure: @Sendable (HostRequestError) -> Action
        /// The action for the library's own answer (mode "builtin"); nil: there is none.
        public let sample: Action?
        /// How long the library's own answer takes.
        public let sampleDelay: Duration

        /// The same request, its actions wrapped for a parent feature.
        func map<Parent: Sendable>(_ transform: @escaping @Sendable (Action) -> Parent) -> EffectRequest<Parent> {
            let answer = self.answer
            let failure = self.failure
            return EffectRequest<Parent>(
                id: id, kind: kind, payload: payload,
                answer: { (json) throws(JSONCodingError) in transform(try answer(json)) },
                failure: { transform(failure($0)) },
                sample: sample.map(transform), sampleDelay: sampleDelay)
        }
    }
#endif
