/// Poison inputs (docs/deploy.md, "Poison inputs"): records that killed the process
/// applying them, put out of the way (`JournalRecord.poisoned`) by the bridge that took
/// the session over. Such an input is refused when it comes again: by its message id, and
/// by its content, the same input on the same state (the instance's version) under any id.
extension JournaledInstance {
    /// One record put out of the way as a poison input.
    struct Poison: Sendable {
        /// The client message that carried it; nil: none, or not known.
        let message: JSONValue?
        /// The record (nil: carried past a checkpoint by a build that did not keep it).
        let record: JSONValue?
        /// The instance's version when it was applied; nil: not known.
        let version: UInt64?
        /// Its input in the long form (`JournalRecord.longForm`); nil: not an input, or not known.
        let input: JSONValue?

        init(message: JSONValue?, record: JSONValue?, version: UInt64?) {
            self.message = message
            self.record = record
            self.version = version
            input = JournalRecord.input(of: record)
        }

        /// The record that carries it past a checkpoint, its version written out.
        var carried: JSONValue { JournalRecord.poisoned(id: message, record: record, version: version).json }
    }

    /// Whether the input sent with this client message id was a poison input (it killed
    /// the process that applied it, and was put out of the way: `JournalRecord.poisoned`).
    public func wasPoisoned(_ message: JSONValue) -> Bool {
        applying.withLock { $0.poisons.contains { $0.message == message } }
    }

    /// Whether `input`, applied now, is a poison input the journal put out of the way: the
    /// same input (as JSON, however written: `"add"` is `{"add":{}}`, members in any
    /// order) at the version it killed a process at. A version names one state of the
    /// instance's history (each change, a goto too, makes a new one, and a replay reaches
    /// the same ones), so this is the same input on the same state, at the cost of one
    /// fk_version and no copy of the state. The same input on another state may be fine,
    /// and is applied: a session that keeps dying is quarantined by its host instead.
    public func isPoison(_ input: JSONValue) -> Bool {
        applying.withLock { commits in
            guard !commits.poisons.isEmpty, let version = try? instance.version() else { return false }
            let long = JournalRecord.longForm(input)
            return commits.poisons.contains { poison in
                poison.version == version && poison.input.map { $0.isEquivalent(to: long) } == true
            }
        }
    }

    /// How many records of this journal were put out of the way as poison inputs: each
    /// killed a process (docs/deploy.md, "Poison inputs": a session with two is quarantined).
    public var poisonCount: Int { applying.withLock { $0.poisons.count } }

    /// Lock held: a record a sandboxed plugin faulted on (FK_ERR_PLUGIN_TRAPPED,
    /// FK_ERR_PLUGIN_LIMIT) while applied live. Its instance goes on from the state before
    /// it (`HostedInstance.recover`), and the record is put away at once, as the poison
    /// check would after a crash: a `poisoned` record naming it (`at`) is appended, so no
    /// replay, on this bridge or another, applies it, and its message id and its input on
    /// this state are refused from then on.
    func putAway(_ record: JournalRecord, at index: Int, _ commits: inout Commits) {
        try? instance.recover()
        let version = try? instance.version()
        let message: JSONValue? = if case .sendBy(let id, _) = record { id } else { nil }
        let marker = JournalRecord.poisoned(id: message, record: record.json, version: version, at: index)
        if defers {
            _ = try? hand(marker, claimed: false, &commits)
        } else if (try? store.append(marker.json)) != nil {
            commits.records += 1
        }
        commits.poisons.append(Poison(message: message, record: record.json, version: version))
    }
}
