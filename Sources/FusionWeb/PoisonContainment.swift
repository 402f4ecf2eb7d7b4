import FusionHost

/// How far a poison input reaches (docs/deploy.md, "Poison inputs"). An input that killed
/// a bridge is refused when it comes again, under its own id or under any other on the
/// same state (`JournaledInstance.isPoison`); a session whose inputs have killed bridges
/// twice is quarantined: it stays readable, and nothing in it changes any more, so a
/// third bridge never dies of it.
extension BridgeSession {
    /// Poison inputs (records put out of the way, in all of its instances' journals) after
    /// which a session is quarantined.
    static let quarantineAfter = 2

    /// Whether the session is quarantined: its journals hold `quarantineAfter` poison inputs.
    var isQuarantined: Bool {
        guard journals != nil else { return false }
        return instances.reduce(0) { $0 + ($1.journal?.poisonCount ?? 0) } >= Self.quarantineAfter
    }

    /// Refuses, in a quarantined session, a message that would change it: an input, a
    /// host's answer, a move of the clock, an instance made or destroyed. Reading goes on
    /// (`resync`, `applied`, the manifest, and `create` with `reuse` of an instance the
    /// session has, which is how a page finds its instances again).
    func refuseIfQuarantined(_ message: ClientMessage) throws(BridgeError) {
        switch message {
        case .manifest, .resync, .applied: return
        case .create(_, _, let key, let reuse) where reuse && key.flatMap(instance) != nil: return
        case .create, .send, .respond, .fail, .advanceClock, .destroy:
            if isQuarantined { throw .sessionQuarantined }
        }
    }
}

extension BridgeInstance {
    /// Refuses an input that killed a bridge on this instance's present state, whatever
    /// the id it comes with now (a person who clicks again sends a new one).
    func refuseIfPoison(_ input: JSONValue) throws(BridgeError) {
        if journal?.isPoison(input) == true { throw .poisonContent(sandboxed: hosted.library.isSandboxed) }
    }
}

extension BridgeError {
    static func poisonContent(sandboxed: Bool) -> BridgeError {
        BridgeError(
            status: "BRIDGE_POISON_INPUT",
            message:
                "this input, on this same state, \(poisonCause(sandboxed)); it was not applied, and the session goes on from the state before it"
        )
    }
    static let sessionQuarantined = BridgeError(
        status: "BRIDGE_SESSION_QUARANTINED",
        message:
            "inputs of this session killed the bridges that applied them \(BridgeSession.quarantineAfter) times: it is quarantined, its state can be read but nothing in it changes any more; start a new session"
    )
}
