import Dispatch

/// Group commit (docs/reliability.md, "Group commit"): a journal with a
/// `JournalCommitter` hands each record over without waiting for the disk, and applies
/// it, in the journal's order, once the committer's shared sync has returned.
extension JournaledInstance {
    /// Writes a record (with the real time held back before it) and hands it to the
    /// committer; its ticket, to wait on. `record` is made under the lock; nil writes nothing.
    func write(claimed: Bool = true, _ record: (inout Commits) -> JournalRecord?) throws(JournaledCallError) -> UInt64? {
        guard defers else { return nil }
        return try applying.withLock { (commits: inout Commits) throws(JournaledCallError) -> UInt64? in
            guard let made = record(&commits) else { return nil }
            if claimed, let held = Self.releaseHeldTime(&commits) { _ = try hand(held, claimed: false, &commits) }
            return try hand(made, claimed: claimed, &commits)
        }
    }

    /// Lock held: appends a record without waiting for the disk, and hands it over.
    func hand(_ record: JournalRecord, claimed: Bool, _ commits: inout Commits) throws(JournaledCallError) -> UInt64 {
        let ticket = commits.nextTicket
        let start = ContinuousClock.now
        let handed: DeferredAppend
        do throws(JournalError) {
            handed = try store.appendDeferred(record.json) { [weak self] failure in self?.synced(ticket, failure) }
        } catch {
            throw .notJournaled(error)
        }
        commits.nextTicket += 1
        commits.records += 1
        var synced: JournalError?? = nil
        if case .now(let failure) = handed { synced = .some(failure) }
        commits.written.append(
            Written(ticket: ticket, record: record, claimed: claimed, synced: synced, handed: start, index: commits.records - 1))
        return ticket
    }

    /// The committer's word on a record: marked, then its caller woken. The committer
    /// reports in the order records were handed over, so every record before it is
    /// marked already.
    func synced(_ ticket: UInt64, _ failure: JournalError?) {
        let (waiters, handed) = applying.withLock { commits -> ([Waiter], ContinuousClock.Instant?) in
            var handed: ContinuousClock.Instant?
            if let index = commits.written.firstIndex(where: { $0.ticket == ticket }) {
                commits.written[index].synced = .some(failure)
                handed = commits.written[index].handed
            }
            return (commits.waiters.removeValue(forKey: ticket) ?? [], handed)
        }
        if failure == nil, let handed { observer?.durable(after: .now - handed) }
        for waiter in waiters {
            switch waiter {
            case .task(let continuation): continuation.resume()
            case .thread(let semaphore): semaphore.signal()
            case .applyOnceSynced: _ = applySynced(through: ticket)
            }
        }
    }

    /// Blocks the calling thread until the record's sync has returned.
    func waitForSync(_ ticket: UInt64) {
        let semaphore = applying.withLock { commits -> DispatchSemaphore? in
            if commits.isSynced(ticket) { return nil }
            let semaphore = DispatchSemaphore(value: 0)
            commits.waiters[ticket, default: []].append(.thread(semaphore))
            return semaphore
        }
        semaphore?.wait()
    }

    /// Applies, in the journal's order, every record whose sync has returned, up to and
    /// including `ticket` (synced: so are all before it); a record whose sync failed is
    /// not applied. Returns what became of `ticket`'s record.
    func applySynced(through ticket: UInt64) -> Result<Void, JournaledCallError> {
        applying.withLock { commits in
            while let first = commits.written.first, first.ticket <= ticket, case .some(let failure) = first.synced {
                commits.written.removeFirst()
                let outcome: Result<Void, JournaledCallError>
                if let failure {
                    outcome = .failure(.notJournaled(failure))
                } else {
                    if case .sendBy(let message, _) = first.record { commits.appliedMessages.add(message) }
                    do throws(FusionHostError) {
                        try Self.apply(first.record, to: instance, replaying: false)
                        outcome = .success(())
                    } catch {
                        if HostedInstance.isPluginFault(error) { putAway(first.record, at: first.index, &commits) }
                        if case .sendBy(let message, _) = first.record {
                            commits.appliedMessages.refuse(message, RecentMessageIDs.Refusal(error))
                        }
                        outcome = .failure(.refused(error))
                    }
                }
                if first.claimed || first.ticket == ticket { commits.outcomes[first.ticket] = outcome }
            }
            checkpointIfDue(&commits)
            return commits.outcomes.removeValue(forKey: ticket) ?? .success(())
        }
    }
}
