import FusionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `FUSIONKIT_FAULT`, a testing aid (include/fusionkit.h at FK_ERR_INTERNAL and
/// FK_ERR_UNSETTLED, docs/c.md, "Faults for tests"): the two statuses no input of a
/// sound library reaches, made reachable so that a test can see a host handle them.
/// Read once, on the first call that asks; unset, each place that asks costs a load
/// and a branch, and only fk_state and the lookup of an unknown feature ask.
enum InjectedFault: String {
    /// fk_state fails with FK_ERR_INTERNAL, as when a state cannot be written as JSON.
    case stateInternal = "state-internal"
    /// The library has one more feature, `fault.stray` (in no manifest), whose input
    /// `stray` starts an effect that sleeps on the system clock: on a manual clock the
    /// call returns FK_ERR_UNSETTLED from the real settling, as a feature that strays
    /// off its clock would.
    case strayEffect = "stray-effect"

    /// The fault the environment asks for, if any (an unknown value asks for none).
    static let current: InjectedFault? = getenv("FUSIONKIT_FAULT").flatMap { InjectedFault(rawValue: String(cString: $0)) }

    /// What fk_state throws under `state-internal`.
    static func checkState() throws(FusionError) {
        guard current == .stateInternal else { return }
        throw FusionError(.internalError, "the state cannot be written as JSON (injected: FUSIONKIT_FAULT=state-internal)")
    }

    /// The `fault.stray` feature under `stray-effect`, for a name no feature has.
    static func feature(named name: String) -> FeatureDefinition? {
        guard current == .strayEffect, name == StrayEffect.name else { return nil }
        return strayDefinition
    }

    private static let strayDefinition = FeatureDefinition(StrayEffect.self)
}

/// The feature `stray-effect` adds: `stray` starts an effect that waits on the system
/// clock, which a manual-clock instance cannot settle.
struct StrayEffect: Feature {
    static let name = "fault.stray"
    static let summary = "A testing aid of FUSIONKIT_FAULT=stray-effect: its effect waits off its clock."
    @JSONCoded
    enum Input: JSONCoded, Sendable { case stray }
    enum Action: Sendable { case strayed }
    @JSONCoded
    struct State: JSONCoded, Equatable, Sendable { var strayed = false }
    init(environment: Environment) {}
    var initialState: State { State() }
    func transform(_ input: Input, state: State) -> [Action] { [.strayed] }
    func perform(_ action: Action, state: inout State) -> Effect<Action> {
        state.strayed = true
        return .run(id: "fault.stray.sleep") { _ in try? await Task.sleep(for: .seconds(30)) }
    }
}
