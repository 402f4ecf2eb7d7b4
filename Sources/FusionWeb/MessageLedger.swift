import Synchronization

/// What became of each `send` message of a session, by its string id (docs/web-protocol.md,
/// "Exactly once"): the id is the unit of idempotence. A send whose id is being applied
/// waits for that outcome; one whose id was done gets the outcome it had, and is not
/// applied again, whichever connection of the session it comes on (a tab that rejoined
/// while its dropped connection's queued messages are still being read, a client that
/// resent without asking `applied`).
///
/// "Done" is what cannot be undone: applied, or refused by the feature (the journal holds
/// both). A send that changed nothing for a reason of the bridge's (the journal could not
/// take it, the instance is unknown) is let go, and may be sent again.
final class MessageLedger: Sendable {
    /// How a done send was answered.
    enum Outcome: Sendable, Equatable {
        /// Applied: the instance's version after it, when the bridge still knew it.
        case applied(version: UInt64?)
        /// Refused by the feature (a library status), with the refusal.
        case refused(BridgeError)
    }

    /// How many done outcomes are kept at least, as the journal keeps message ids
    /// (`RecentMessageIDs.kept`).
    static let kept = 256

    /// The ledger's answer to a send about to be applied.
    enum Claim: Sendable, Equatable {
        /// Nobody has applied it: the caller applies it, then calls `finish`.
        case mine
        /// It was done already.
        case done(Outcome)
    }

    private struct State {
        /// Ids being applied, with the tasks waiting for their outcome.
        var inFlight: [String: [CheckedContinuation<Void, Never>]] = [:]
        var done: [String: Outcome] = [:]
        /// `done`'s ids, oldest first, for trimming.
        var order: [String] = []
    }
    private let state = Mutex(State())

    /// Claims `id` for applying; waits while another connection applies it. `journaled`
    /// says what the session's journal holds of the id (a session resumed after a crash
    /// or taken over, whose ledger is new): done, and how, or nil.
    func claim(_ id: String, journaled: () -> Outcome?) async -> Claim {
        while true {
            enum Step { case claim(Claim), wait }
            let step = state.withLock { state -> Step in
                if let outcome = state.done[id] { return .claim(.done(outcome)) }
                if state.inFlight[id] != nil { return .wait }
                state.inFlight[id] = []
                return .claim(.mine)
            }
            switch step {
            case .claim(.mine):
                // Done by an earlier copy of the session: not applied again, and answered
                // as it was (the journal says whether the feature refused it, and how).
                guard let outcome = journaled() else { return .mine }
                finish(id, outcome)
                return .done(outcome)
            case .claim(let claim):
                return claim
            case .wait:
                await wait(for: id)
            }
        }
    }

    /// Says what became of a claimed id: done (`outcome`), or let go (nil: it changed
    /// nothing and may be sent again). Wakes whoever waits for it.
    func finish(_ id: String, _ outcome: Outcome?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let waiters = state.inFlight.removeValue(forKey: id) ?? []
            if let outcome {
                if state.done.updateValue(outcome, forKey: id) == nil { state.order.append(id) }
                if state.order.count > 2 * Self.kept {
                    for old in state.order.prefix(state.order.count - Self.kept) { state.done[old] = nil }
                    state.order.removeFirst(state.order.count - Self.kept)
                }
            }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until every send being applied now has landed or failed for good (those that
    /// start meanwhile are not waited for): an `applied` answer is then final.
    func settle() async {
        let inFlight = state.withLock { Array($0.inFlight.keys) }
        for id in inFlight { await wait(for: id) }
    }

    /// What became of `id`, if it was done (see `Outcome`).
    func outcome(_ id: String) -> Outcome? { state.withLock { $0.done[id] } }

    /// Returns at once if `id` is not in flight, else when it is finished.
    private func wait(for id: String) async {
        await withCheckedContinuation { (woken: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.inFlight[id] != nil else { return true }
                state.inFlight[id, default: []].append(woken)
                return false
            }
            if now { woken.resume() }
        }
    }
}
