/// An instance's recent states, each with what made it: what time travel stands on
/// (`fk_history`, `fk_goto`). Kept snapshots rather than replay: a feature's `State` is
/// a value, so an entry shares every buffer it has in common with its neighbours, and
/// going back is a copy instead of re-running every input since the start (which
/// needs the same clock, seed and host answers, and cannot restore a state that came
/// from the system clock). Off unless the creation options ask for it (`"history": N`).
///
/// Guarded by its store's lock: only the `Store` that owns it touches it.
@usableFromInline
final class Timeline<State>: @unchecked Sendable {
    @usableFromInline typealias Cause = TimelineCause

    /// How many versions are kept, the current one included.
    let limit: Int
    // Three parallel lists, oldest first, from `start` on (older ones are dropped in
    // batches, so that keeping a version copies none of the others). The versions have
    // a list of their own so that finding one is a binary search over plain numbers:
    // this generic class is not specialized, and touching an entry holding a `State`
    // goes through its value witnesses.
    private var versions: [UInt64]
    private var causes: [Cause]
    private var states: [State]
    private var start = 0
    /// What the change being applied is made by; set before actions are applied and
    /// back to `.effect` after.
    @usableFromInline var nextCause: Cause = .effect

    init(limit: Int, version: UInt64, state: State) {
        self.limit = max(1, limit)
        versions = [version]
        causes = [.start]
        states = [state]
    }

    /// The versions kept, oldest first.
    var keptVersions: ArraySlice<UInt64> { versions[start...] }

    /// Keeps a new version, made by `nextCause`, and resets the cause.
    @usableFromInline
    func record(version: UInt64, state: State) {
        versions.append(version)
        causes.append(nextCause)
        states.append(state)
        nextCause = .effect
        if versions.count - start > limit { start += 1 }
        // Dropped entries are released once they are as many as the kept ones.
        if start >= limit {
            versions.removeFirst(start)
            causes.removeFirst(start)
            states.removeFirst(start)
            start = 0
        }
    }

    /// Where `version` is, or where it would go, among the kept versions (ascending).
    private func position(of version: UInt64) -> Int {
        var low = start
        var high = versions.count
        while low < high {
            let middle = (low + high) / 2
            if versions[middle] < version { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The state kept for `version`, or nil when it is not kept.
    func state(of version: UInt64) -> State? {
        let index = position(of: version)
        return index < versions.count && versions[index] == version ? states[index] : nil
    }

    /// Forgets `version` and every later one: time travel branches from there. The
    /// caller records the restoring version next.
    /// What going to `version` restores, from `current`: nil when it is the current one
    /// (nothing changes), else its state; throws, listing what is kept, for a version
    /// not kept. The rule both builds' `goto` follow.
    func stateToRestore(_ version: UInt64, current: UInt64) throws(FusionError) -> State? {
        if version == current { return nil }
        guard let state = state(of: version) else {
            let kept = Array(keptVersions)
            // Listed in full when short: after a goto the versions kept are not a range.
            let listed =
                kept.count <= 8
                ? kept.map { "v\($0)" }.joined(separator: ", ")
                : "\(kept.count) versions from v\(kept[0]) to v\(kept[kept.count - 1]) (fk_history lists them)"
            throw FusionError(.invalidArgument, "version \(version) is not kept; this instance keeps \(listed)")
        }
        return state
    }

    /// Forgets `version` and every later one: a goto's abandoned future.
    func dropFrom(_ version: UInt64) {
        let index = position(of: version)
        versions.removeSubrange(index...)
        causes.removeSubrange(index...)
        states.removeSubrange(index...)
    }

    /// `{"limit":…,"version":…,"entries":[{"version":0,"cause":"start"},…]}`.
    func json(current: UInt64) -> JSONValue {
        let list: [JSONValue] = (start..<versions.count).map { index in
            var members: [JSONMember] = [JSONMember("version", .integer(Int(truncatingIfNeeded: versions[index])))]
            switch causes[index] {
            case .start:
                members.append(JSONMember("cause", "start"))
            case .input(let json):
                members.append(JSONMember("cause", "input"))
                // Accepted under the depth limit of its day: read back under the parser's
                // own, so that lowering fk_limit later does not drop it from the history.
                if let json, let input = try? JSONParser.parse(json) { members.append(JSONMember("input", input)) }
            case .effect:
                members.append(JSONMember("cause", "effect"))
            case .response:
                members.append(JSONMember("cause", "response"))
            case .restored(let version):
                members.append(JSONMember("cause", "goto"))
                members.append(JSONMember("restored", .integer(Int(truncatingIfNeeded: version))))
            }
            return .object(members)
        }
        return [
            "limit": .integer(limit),
            "version": .integer(Int(truncatingIfNeeded: current)),
            "entries": .array(list)
        ]
    }
}

/// What made a version of an instance (see `Timeline`).
@usableFromInline
enum TimelineCause: Sendable {
    /// The state the instance was created with (version 0).
    case start
    /// An input, as the JSON it was sent as (nil when sent from Swift).
    case input([UInt8]?)
    /// An action an effect fed back (a timer, a built-in answer).
    case effect
    /// The host's answer to a request (`fk_respond`, `fk_fail_request`).
    case response
    /// `fk_goto`: the state of this earlier version, restored.
    case restored(UInt64)
}
