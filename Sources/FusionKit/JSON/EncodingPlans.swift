/// The encoding plans and struct verdicts learnt so far, shared by every encoder in the
/// process. Reading a plan is one lock and one lookup; learning happens on the few
/// encodes that meet types without a verdict.
final class EncodingPlans: @unchecked Sendable {
    static let shared = EncodingPlans()

    /// How often one type's plan is built again, to cover structs first met later (each
    /// rebuild covers at least one more type, so this only bounds pathological cases).
    static let rebuildLimit = 64

    private struct Entry {
        var plan: EncodingPlan
        var rebuilds: Int
    }

    private let lock = ConditionLock()
    private var plans: [ObjectIdentifier: Entry] = [:]
    private var verdicts: [ObjectIdentifier: EncodingPlanBuilder.Verdict] = [:]
    private var identityRanges: [ObjectIdentifier: IdentityRanges.Ranges?] = [:]

    /// `T`'s stored properties when it is written member by member (a plain verdict):
    /// what `StateDiff` walks instead of capturing `encode(to:)` calls.
    func plainFields<T: Encodable>(of type: T.Type) -> [(name: String, offset: Int, type: any Encodable.Type)]? {
        lock.lock()
        defer { lock.unlock() }
        guard case .plain(let fields)? = verdicts[ObjectIdentifier(T.self)] else { return nil }
        return fields
    }

    /// Whether `T` has a verdict yet (plain or custom): until then `plainFields` says nil
    /// for a type that may still turn out plain.
    func isJudged<T: Encodable>(_ type: T.Type) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return verdicts[ObjectIdentifier(T.self)] != nil
    }

    /// `IdentityRanges` of `T`, once its verdict is known (nil before, and for types
    /// without a plain verdict).
    func identityRanges<T: Encodable>(of type: T.Type) -> IdentityRanges.Ranges? {
        let id = ObjectIdentifier(T.self)
        lock.lock()
        defer { lock.unlock() }
        if let known = identityRanges[id] { return known }
        guard verdicts[id] != nil else { return nil }  // not judged yet: ask again later
        let ranges = IdentityRanges.ranges(of: T.self, verdicts: verdicts)
        identityRanges[id] = .some(ranges)
        return ranges
    }

    /// `T`'s plan, or nil when values of `T` should go through `Encodable` and be recorded.
    func plan<T: Encodable>(for type: T.Type) -> EncodingPlan? {
        lock.lock()
        defer { lock.unlock() }
        return plans[ObjectIdentifier(T.self)]?.plan
    }

    /// Takes verdicts from what an encode of a `T` recorded and builds `T`'s plan again
    /// with them; returns the plan to use from now on.
    func learn<T: Encodable>(_ type: T.Type, from recording: EncodeRecording) -> EncodingPlan? {
        let id = ObjectIdentifier(T.self)
        var known = lock.withLock { verdicts }
        if let current = lock.withLock({ plans[id] }), !current.plan.hasUnresolvedParts || current.rebuilds >= Self.rebuildLimit {
            return current.plan  // another thread completed it already, or it is as complete as it gets
        }
        // Judged and checked outside the lock: replays run members' own encode(to:).
        var learnt: [ObjectIdentifier: EncodingPlanBuilder.Verdict] = [:]
        for (typeID, record) in recording.records where known[typeID] == nil {
            learnt[typeID] = EncodingPlanBuilder.verdict(from: record)
        }
        known.merge(learnt) { old, _ in old }
        // A plain verdict stands only if the type's plan writes what its encode wrote.
        // Turning one down changes the plans of the types around it: check again until
        // nothing changes.
        var changed = true
        while changed {
            changed = false
            for (typeID, verdict) in learnt {
                guard case .plain = verdict, let record = recording.records[typeID], !record.replays(with: known) else { continue }
                learnt[typeID] = .custom
                known[typeID] = .custom
                changed = true
            }
        }
        let plan = EncodingPlanBuilder.plan(for: T.self, verdicts: known)
        lock.lock()
        defer { lock.unlock() }
        for (typeID, verdict) in learnt where verdicts[typeID] == nil { verdicts[typeID] = verdict }
        let rebuilds = plans[id].map { $0.rebuilds + 1 } ?? 0
        plans[id] = Entry(plan: plan, rebuilds: rebuilds)
        return plan
    }
}
