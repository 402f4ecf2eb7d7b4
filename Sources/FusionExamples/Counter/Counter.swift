import FusionKit

// Each example states Feature's requirements the same way (name, summary, Input,
// Action, State, init, initialState, transform, perform): the shape repeats by design.
/// The counter of seed 000 (UIFusionKit), as its Input/State spec reads:
///
/// | Input   | Action        | State                                   |
/// |---------|---------------|-----------------------------------------|
/// | increase| increaseValue | value + 1, isReset = false              |
/// | decrease| decreaseValue | value - 1, isReset = false              |
/// | reset   | resetValue    | value = 0, isReset = true               |
/// | show    | showAlert     | the alert is triggered                  |
///
/// The seed's `showAlert: Void` is a one-shot trigger. Across a JSON boundary it
/// becomes `alert`: the message to show, or null. A front end shows it when it is set
/// and sends `alertDismissed` when the person closes it, so it shows exactly once.
public struct Counter: Feature {
    public static let name = "counter"
    public static let summary = "Increase, decrease and reset a value; show it in an alert (seed 000)."

    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        case increase
        case decrease
        case reset
        case show
        case alertDismissed
    }

    public enum Action: Sendable {
        case increaseValue
        case decreaseValue
        case resetValue
        case showAlert
        case dismissAlert
    }

    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable {
        public var value = 0
        public var isReset = false
        /// The alert to show once, or nil when none is up.
        public var alert: String?

        public init(value: Int = 0, isReset: Bool = false, alert: String? = nil) {
            self.value = value
            self.isReset = isReset
            self.alert = alert
        }
    }

    public init(environment: Environment) {}

    public var initialState: State { State() }

    /// `isReset` says the value was reset and has not moved since, so it is never true
    /// beside a value other than 0, whatever a given state says.
    public func deriveValues(in state: inout State) {
        if state.value != 0 { state.isReset = false }
    }

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .increase: return [.increaseValue]
        case .decrease: return [.decreaseValue]
        case .reset: return [.resetValue]
        case .show: return [.showAlert]
        case .alertDismissed: return [.dismissAlert]
        }
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .increaseValue:
            // A state given from outside may hold Int.max: stop there rather than trap.
            state.value = state.value.addingReportingOverflow(1).overflow ? state.value : state.value + 1
            state.isReset = false
        case .decreaseValue:
            state.value = state.value.subtractingReportingOverflow(1).overflow ? state.value : state.value - 1
            state.isReset = false
        case .resetValue:
            state.value = 0
            state.isReset = true
        case .showAlert:
            state.alert = "The value is \(state.value)."
        case .dismissAlert:
            state.alert = nil
        }
        return .none
    }
}
