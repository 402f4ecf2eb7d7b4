import FusionHost
import FusionScenario

/// What a session's inputs and returns in time go through: a journaled instance (each
/// change on disk first), a recorder (each change written as a scenario step) or the
/// instance itself. `Session` picks one when it starts, so nothing else asks which.
protocol SessionDriver: Sendable {
    func sendInput(_ json: String) throws
    func travel(to version: UInt64) throws
    /// Moves a manual clock (`:advance`); the library refuses it for the system clock.
    func moveClock(byNanoseconds nanoseconds: UInt64) throws
}

extension HostedInstance: SessionDriver {
    func sendInput(_ json: String) throws { try send(json) }
    func travel(to version: UInt64) throws { _ = try goto(version: version) }
    func moveClock(byNanoseconds nanoseconds: UInt64) throws { try advanceClock(byNanoseconds: nanoseconds) }
}

extension SessionRecorder: SessionDriver {
    func sendInput(_ json: String) throws { try send(json) }
    func travel(to version: UInt64) throws { try goto(version: version) }
    func moveClock(byNanoseconds nanoseconds: UInt64) throws { try advance(byNanoseconds: nanoseconds) }
}

extension JournaledInstance: SessionDriver {
    func sendInput(_ json: String) throws { try send(json) }
    func travel(to version: UInt64) throws { try goto(version: version) }
    func moveClock(byNanoseconds nanoseconds: UInt64) throws { try advanceClock(byNanoseconds: nanoseconds) }
}
