/// The real-time clock and checkpoints of a `JournaledInstance`: the records a journal
/// writes by itself, besides those its caller asks for.
extension JournaledInstance {
    // MARK: The clock in real time

    /// Moves the clock by the real time since the last tick, journaled first, when that
    /// can change what the session does: when an effect's sleep is due (fk_next_wake).
    /// Until then the time is held back, and journaled as one move when due, or before
    /// the next record of another kind (so that an input starts its timers at the clock's
    /// true time). A move that wakes nothing changes nothing: effects sleep on the clock,
    /// they do not read it. With nothing pending no effect can tell time moved at all.
    /// A journal that cannot be written stops the clock (and every call then says why).
    func tick(_ nanoseconds: UInt64) {
        guard defers else {
            applying.withLock { commits in
                guard let move = clockMove(&commits, nanoseconds), (try? store.append(move.json)) != nil else { return }
                commits.records += 1
                _ = try? Self.apply(move, to: instance, replaying: false)
                checkpointIfDue(&commits)
            }
            return
        }
        // The ticking thread moves every real-time session's clock: it hands the record
        // over and goes on, and the committer's thread applies it once it is on the disk.
        guard let ticket = try? write(claimed: false, { clockMove(&$0, nanoseconds) }) else { return }
        let synced = applying.withLock { commits in
            if commits.isSynced(ticket) { return true }
            commits.waiters[ticket, default: []].append(.applyOnceSynced)
            return false
        }
        if synced { _ = applySynced(through: ticket) }
    }

    /// Lock held: the clock move a tick of `elapsed` nanoseconds journals now, if any.
    func clockMove(_ commits: inout Commits, _ elapsed: UInt64) -> JournalRecord? {
        // An instance that cannot say (destroyed, while the clock still ticked) moves nothing.
        guard let pending = try? instance.pending() else { return nil }
        if pending.effects == 0 {
            commits.heldTime = 0
            return nil
        }
        let (sum, overflow) = commits.heldTime.addingReportingOverflow(elapsed)
        let held = overflow ? UInt64.max : sum
        if knowsNextWake, case .success(let wake) = Result(catching: { () throws(FusionHostError) in try instance.nextWake() }),
            held < wake ?? UInt64.max
        {
            commits.heldTime = held  // nothing due: an effect waits on a later deadline, or on a host
            return nil
        }
        commits.heldTime = 0
        return .advance(nanoseconds: held)
    }

    /// Lock held: the real time held back, as a move to journal before another record.
    static func releaseHeldTime(_ commits: inout Commits) -> JournalRecord? {
        guard commits.heldTime > 0 else { return nil }
        defer { commits.heldTime = 0 }
        return .advance(nanoseconds: commits.heldTime)
    }

    // MARK: Checkpoints

    /// Lock held, after a record was applied: when `checkpointEvery` records have piled
    /// up and nothing is in flight to the disk, replaces the journal by its header and a
    /// checkpoint (fk_checkpoint), then restarts the instance's effects as one made from
    /// the checkpoint does (fk_restart_effects), so that both go on alike. An instance
    /// with work under way that cannot restart (FK_ERR_BUSY) is tried after the next
    /// record. A checkpoint that cannot be written leaves the journal as it was.
    func checkpointIfDue(_ commits: inout Commits) {
        guard canCheckpoint, checkpointEvery > 0, commits.records >= checkpointEvery, commits.written.isEmpty else { return }
        guard let checkpoint = try? instance.checkpoint() else { return }
        do throws(JournalError) {
            // The message ids the records dropped carried go on in the records after it
            // (`applied`, and `refused` with what the feature said).
            let carried = commits.appliedMessages.carried
            let applied = carried.map(\.json)
            // So do the poison inputs, each in a record of its own with the version it was
            // applied at (its place in the journal goes).
            let poisoned = commits.poisons.map(\.carried)
            try store.replace(header: header, records: [JournalRecord.checkpoint(checkpoint).json] + applied + poisoned)
        } catch {
            return
        }
        commits.records = 1 + commits.appliedMessages.carried.count + commits.poisons.count
        try? instance.restartEffects()
    }
}
