/// Checkpoints (see `Checkpoint`): when one may be taken, and starting the effects again.
extension Store {
    /// Why no checkpoint can be taken now (a host request open, an effect the feature
    /// does not restart), in words; nil when one can.
    public var checkpointBlocker: String? { lock.withLock { checkpointBlockerLocked() } }

    /// `checkpointBlocker`, lock held.
    func checkpointBlockerLocked() -> String? {
        let restartable = F.restartableEffects
        var blocking: [String] = []
        for effect in effects.values {
            if effect.task == nil || effect.request != nil {
                blocking.append("a host request\(effect.id.map { " (\($0))" } ?? "") is open")
            } else if let id = effect.id, restartable.contains(id) {
                continue
            } else {
                blocking.append("effect \(effect.id.map { "\"\($0)\"" } ?? "without an id") is running and is not restartable")
            }
        }
        guard !blocking.isEmpty else { return nil }
        return "\"\(F.name)\" cannot be checkpointed now: " + Set(blocking).sorted().joined(separator: "; ")
    }

    /// Stops every effect and performs the feature's `restartEffects(for:)` for the
    /// current state: what a checkpoint does to the instance it is taken of, and to the
    /// one made from it. Throws `busy` (nothing done) when `checkpointBlocker` says so.
    /// On a manual clock, settle afterwards (the caller's `answering`).
    public func restartEffects() throws(FusionError) {
        lock.lock()
        if let blocker = checkpointBlockerLocked() {
            lock.unlock()
            throw FusionError(.busy, blocker)
        }
        guard !closed else {
            lock.unlock()
            return
        }
        for (key, effect) in effects {
            effects.removeValue(forKey: key)
            if let task = effect.task { tasksToCancel.append(task) }
        }
        timeline?.nextCause = .effect
        applyLocked(feature.restartEffects(for: current))
        finishLocked()
    }
}
