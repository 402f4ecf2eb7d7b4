/// The encoding plans and struct verdicts learnt so far, shared by every encoder in the
/// process. Reading a plan is one lock and one lookup; learning happens on the few
/// encodes that meet types without a verdict.
final class EncodingPlans: @unchecked Sendable {
    static let shared = EncodingPlans()

    /// How often one type's plan is built again, to cover structs first met later.
    static let rebuildLimit = 16

    private struct Entry {
        var plan: EncodingPlan
        var rebuilds: Int
    }

    private let lock = ConditionLock()
    private var plans: [ObjectIdentifier: Entry] = [:]
    private var verdicts: [ObjectIdentifier: EncodingPlanBuilder.Verdict] = [:]

    /// `T`'s plan, or nil when values of `T` should go through `Encodable` and be recorded.
    func plan<T: Encodable>(for type: T.Type) -> EncodingPlan? {
        lock.lock()
        defer { lock.unlock() }
        return plans[ObjectIdentifier(T.self)]?.plan
    }

    /// Takes verdicts from what an encode of a `T` recorded and (re)builds `T`'s plan.
    /// Without a recording (the encode could not be streamed): `T` goes through `Encodable`.
    @discardableResult
    func learn<T: Encodable>(_ type: T.Type, from recording: EncodeRecording?) -> EncodingPlan? {
        let id = ObjectIdentifier(T.self)
        // Judged outside the lock: nothing here calls back into encoding, but keep it short.
        var learnt: [(ObjectIdentifier, EncodingPlanBuilder.Verdict)] = []
        for (typeID, record) in recording?.records ?? [:] where lock.withLock({ verdicts[typeID] == nil }) {
            learnt.append((typeID, EncodingPlanBuilder.verdict(from: record)))
        }
        lock.lock()
        defer { lock.unlock() }
        for (typeID, verdict) in learnt where verdicts[typeID] == nil { verdicts[typeID] = verdict }
        let rebuilds = plans[id].map { $0.rebuilds + 1 } ?? 0
        guard rebuilds <= Self.rebuildLimit else { return plans[id]?.plan }
        let plan = recording == nil
            ? EncodingPlan(type: T.self, node: .codable(.of(T.self)))
            : EncodingPlanBuilder.plan(for: T.self, verdicts: verdicts)
        plans[id] = Entry(plan: plan, rebuilds: rebuilds)
        return plan
    }
}
