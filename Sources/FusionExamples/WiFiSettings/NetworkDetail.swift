import FusionKit

// Each example states Feature's requirements the same way (name, summary, Input,
// Action, State, init, initialState, transform, perform): the shape repeats by design.
/// The network detail screen (seed 003): "forget this network", confirmed in an alert.
public struct NetworkDetail: Feature {
    public static let name = "wifi.detail"
    public static let summary = "A network's details, with \"forget this network\" behind a confirmation alert."

    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        case forgetNetworkButtonTapped
        case confirmForgetNetworkButtonTapped
        case forgetAlertDismissed
    }

    public enum Action: Sendable {
        case showForgetAlert
        case confirmForget
        case dismissForgetAlert
        case delegate(Delegate)
    }

    public enum Delegate: Sendable {
        case confirmedForget(Network)
    }

    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable {
        public var network: Network
        public var forgetAlertIsPresented = false
        /// The words of the confirmation, shown while it is presented.
        public var forgetAlert: AlertText

        public init(network: Network) {
            self.network = network
            forgetAlert = .forget(network.name)
        }
    }

    public init(environment: Environment) {}

    public var initialState: State { State(network: Network.samples[0]) }

    public func deriveValues(in state: inout State) { state.network.deriveValues() }

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .forgetNetworkButtonTapped: return [.showForgetAlert]
        case .confirmForgetNetworkButtonTapped: return state.forgetAlertIsPresented ? [.confirmForget] : []
        case .forgetAlertDismissed: return [.dismissForgetAlert]
        }
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .showForgetAlert:
            state.forgetAlertIsPresented = true
        case .dismissForgetAlert:
            state.forgetAlertIsPresented = false
        case .confirmForget:
            state.forgetAlertIsPresented = false
            return .send(.delegate(.confirmedForget(state.network)))
        case .delegate:
            break  // for the parent
        }
        return .none
    }
}
