import FusionKit

// Each example states Feature's requirements the same way (name, summary, Input,
// Action, State, init, initialState, transform, perform): the shape repeats by design.
/// The "connect to network" screen (seed 003): a password, a join button, one second
/// of connecting, then success with the password "blob" (the parent is told and
/// takes over) or an incorrect-password alert.
public struct ConnectToNetwork: Feature {
    public static let name = "wifi.connect"
    public static let summary = "Join a secured network: password, one second of connecting, success with \"blob\"."

    /// How long joining takes, on the environment's clock.
    public static let joinDuration: Duration = .seconds(1)
    /// The id of the join effect: the parent cancels it when it dismisses this screen.
    public static let joinEffect: EffectID = "wifi.connect.join"
    /// The password that works.
    public static let password = "blob"

    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        case passwordChanged(password: String)
        case joinButtonTapped
        case incorrectPasswordAlertDismissed
    }

    public enum Action: Sendable {
        case setPassword(String)
        case join
        case joinFinished(succeeded: Bool)
        case dismissAlert
        case delegate(Delegate)
    }

    /// What this screen tells its parent.
    public enum Delegate: Sendable {
        case connected(Network)
    }

    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable, DerivedFields {
        public var network: Network
        public var password = ""
        public var isConnecting = false {
            didSet { deriveFlags() }
        }
        public var incorrectPasswordAlertIsPresented = false
        /// The words of the incorrect-password alert, shown while it is presented.
        public var incorrectPasswordAlert: AlertText
        /// Derived: whether Join can be tapped (not while a join is in flight). The
        /// transform applies the same rule, so a front end draws what the feature does.
        public private(set) var isJoinEnabled = true
        /// Derived: whether the password can be edited (not while joining).
        public private(set) var isPasswordEditable = true

        public init(network: Network) {
            self.network = network
            incorrectPasswordAlert = .incorrectPassword(for: network.name)
        }

        public static let derivedFields: Set<String> = ["isJoinEnabled", "isPasswordEditable"]

        /// Recomputes the derived fields, the network's included.
        mutating func deriveValues() {
            network.deriveValues()
            deriveFlags()
        }

        private mutating func deriveFlags() {
            isJoinEnabled = !isConnecting
            isPasswordEditable = !isConnecting
        }
    }

    private let clock: any FusionClock

    public init(environment: Environment) {
        clock = environment.clock
    }

    public var initialState: State { State(network: Network.samples[0]) }

    public func deriveValues(in state: inout State) { state.deriveValues() }

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .passwordChanged(let password): return state.isPasswordEditable ? [.setPassword(password)] : []
        case .joinButtonTapped: return state.isJoinEnabled ? [.join] : []
        case .incorrectPasswordAlertDismissed: return [.dismissAlert]
        }
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .setPassword(let password):
            state.password = password
        case .join:
            state.isConnecting = true
            state.incorrectPasswordAlertIsPresented = false
            let succeeded = state.password == Self.password
            return .after(
                Self.joinDuration, on: clock, id: Self.joinEffect, cancelInFlight: true, send: .joinFinished(succeeded: succeeded))
        case .joinFinished(let succeeded):
            state.isConnecting = false
            if succeeded { return .send(.delegate(.connected(state.network))) }
            state.incorrectPasswordAlertIsPresented = true
        case .dismissAlert:
            state.incorrectPasswordAlertIsPresented = false
        case .delegate:
            break  // for the parent
        }
        return .none
    }
}
