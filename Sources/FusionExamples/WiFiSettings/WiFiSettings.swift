import FusionKit

/// The Wi-Fi settings screen of seed 003 (Modern UIKit), domain first:
///
/// - Wi-Fi on/off; off hides every network.
/// - The selected network is shown apart from the others (`selectedNetwork`,
///   `otherNetworks`: derived here, never by the view).
/// - Tapping the selected network opens its detail; tapping a secured network opens
///   the connect screen; tapping an open network joins it at once; the info button
///   opens the detail of any network.
/// - Navigation is state: one optional `destination`, `connect` or `detail`, never
///   two optionals. Dismissing is an input; a dismissed child's effects are cancelled.
/// - Children report through delegate actions: the connect screen says "connected"
///   (select it, dismiss), the detail screen says "forget confirmed" (deselect, dismiss).
/// - While the screen is open (`screenAppeared` … `screenDisappeared`) networks come
///   and go and their signal changes, as in Apple's demo: an effect ticking every
///   `scanInterval` on the environment's clock, drawing from its random source. The
///   setting `{"liveScan": false}` turns it off for tests.
public struct WiFiSettings: Feature {
    public static let name = "wifi"
    public static let summary = "Wi-Fi settings: networks, on/off, connect with a password, details, forget (seed 003)."

    /// 2: the connect and detail screens carry their alerts' words (`AlertText`).
    public static let stateVersion = 2

    public static let scanInterval: Duration = .seconds(2)
    public static let scanEffect: EffectID = "wifi.scan"

    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        case screenAppeared
        case screenDisappeared
        case wifiToggled(isOn: Bool)
        case networkTapped(id: String)
        case infoButtonTapped(id: String)
        case destinationDismissed
        // The connect screen's inputs.
        case passwordChanged(password: String)
        case joinButtonTapped
        case incorrectPasswordAlertDismissed
        // The detail screen's inputs.
        case forgetNetworkButtonTapped
        case confirmForgetNetworkButtonTapped
        case forgetAlertDismissed
    }

    public enum Action: Sendable {
        case startScanning
        case stopScanning
        case scanTick
        case setWiFi(Bool)
        case select(Network)
        case present(Destination)
        case dismiss
        case connect(ConnectToNetwork.Action)
        case detail(NetworkDetail.Action)
    }

    /// Where the screen has navigated to: at most one place at a time.
    @JSONCoded
    public enum Destination: JSONCoded, Equatable, Sendable {
        case connect(ConnectToNetwork.State)
        case detail(NetworkDetail.State)
    }

    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable, DerivedFields {
        public var isOn = true
        public var foundNetworks: [Network]
        public var selectedNetworkID: String?
        public var destination: Destination?
        public var isScanning = false
        /// Derived: the selected network, shown apart; nil when Wi-Fi is off.
        public var selectedNetwork: Network?
        /// Derived: the other networks, in the order found; empty when Wi-Fi is off.
        public var otherNetworks: [Network] = []
        /// Derived: the heading over `otherNetworks`, "Other Networks" below a selected
        /// network and "Networks" when none is, in every screen's words.
        public fileprivate(set) var otherNetworksHeading = WiFiSettings.networksHeading
        /// Derived: how many bars a screen draws for a network's `signalBars`
        /// (`Network.signalBarsMaximum`), so that no screen hard-codes the scale.
        public fileprivate(set) var signalBarsMaximum = Network.signalBarsMaximum

        public init(foundNetworks: [Network] = Network.samples, selectedNetworkID: String? = nil, isOn: Bool = true) {
            self.foundNetworks = foundNetworks
            self.selectedNetworkID = selectedNetworkID
            self.isOn = isOn
            WiFiSettings.derive(&self)
        }

        public static let derivedFields: Set<String> = [
            "selectedNetwork", "otherNetworks", "otherNetworksHeading", "signalBarsMaximum"
        ]
    }

    private let connect: ConnectToNetwork
    private let detail: NetworkDetail
    private let clock: any FusionClock
    private let random: RandomSource
    private let liveScan: Bool

    public static let settings: [FeatureSetting] = [
        .boolean(
            "liveScan",
            summary: "Networks come and go and their signals change while the screen is open (default true; false for tests)."
        )
    ]

    public init(environment: Environment) {
        connect = ConnectToNetwork(environment: environment)
        detail = NetworkDetail(environment: environment)
        clock = environment.clock
        random = environment.random
        liveScan = environment.setting("liveScan", default: true)
    }

    public var initialState: State { State() }

    /// Every derived value again: each network's signal, the open screen's, then the
    /// selected network and the others (from the networks just recomputed).
    public func deriveValues(in state: inout State) {
        for index in state.foundNetworks.indices { state.foundNetworks[index].deriveValues() }
        switch state.destination {
        case .connect(var child):
            child.deriveValues()
            state.destination = .connect(child)
        case .detail(var child):
            child.network.deriveValues()
            state.destination = .detail(child)
        case nil:
            break
        }
        Self.derive(&state)
    }

    /// From version 1: an open connect or detail screen gets its alert's words, made from
    /// its network's name as this version makes them.
    public static func migrateState(_ state: JSONValue, from version: Int) throws(StateMigrationError) -> JSONValue {
        guard version == 1 else { throw NoStateMigration() }
        guard case .object(var members) = state else { throw StateMigrationError("the state is not an object") }
        guard let index = members.firstIndex(where: { $0.key == "destination" }),
            case .object(let screens) = members[index].value, let screen = screens.first, screens.count == 1
        else { return state }  // no screen open (null), or a destination decoding will name as wrong
        guard case .object(var fields) = screen.value, let name = screen.value["network"]?["name"]?.stringValue else {
            throw StateMigrationError("$.destination.\(screen.key) has no network with a name")
        }
        let alert: (key: String, text: AlertText)
        switch screen.key {
        case "connect": alert = ("incorrectPasswordAlert", .incorrectPassword(for: name))
        case "detail": alert = ("forgetAlert", .forget(name))
        default: return state
        }
        fields.append(JSONMember(alert.key, alert.text.jsonValue))
        members[index].value = .object([JSONMember(screen.key, .object(fields))])
        return .object(members)
    }

    /// The live scan can stop and start again at a checkpoint: it is a loop on the clock
    /// that the state describes (`isScanning`). A join under way is not: it waits.
    public static var restartableEffects: Set<EffectID> { [scanEffect] }

    public func restartEffects(for state: State) -> [Action] {
        state.isScanning ? [.startScanning] : []
    }

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .screenAppeared: return liveScan && !state.isScanning ? [.startScanning] : []
        case .screenDisappeared: return state.isScanning ? [.stopScanning] : []
        case .wifiToggled(let isOn): return [.setWiFi(isOn)]
        case .networkTapped(let id):
            guard state.isOn, let network = state.foundNetworks.first(where: { $0.id == id }) else { return [] }
            if id == state.selectedNetworkID { return [.present(.detail(NetworkDetail.State(network: network)))] }
            if network.isSecured { return [.present(.connect(ConnectToNetwork.State(network: network)))] }
            return [.select(network)]
        case .infoButtonTapped(let id):
            guard state.isOn, let network = state.foundNetworks.first(where: { $0.id == id }) else { return [] }
            return [.present(.detail(NetworkDetail.State(network: network)))]
        case .destinationDismissed:
            return state.destination == nil ? [] : [.dismiss]
        case .passwordChanged(let password): return toConnect(.passwordChanged(password: password), state)
        case .joinButtonTapped: return toConnect(.joinButtonTapped, state)
        case .incorrectPasswordAlertDismissed: return toConnect(.incorrectPasswordAlertDismissed, state)
        case .forgetNetworkButtonTapped: return toDetail(.forgetNetworkButtonTapped, state)
        case .confirmForgetNetworkButtonTapped: return toDetail(.confirmForgetNetworkButtonTapped, state)
        case .forgetAlertDismissed: return toDetail(.forgetAlertDismissed, state)
        }
    }

    /// A connect-screen input, when that screen is the destination; ignored otherwise.
    private func toConnect(_ input: ConnectToNetwork.Input, _ state: State) -> [Action] {
        guard case .connect(let child) = state.destination else { return [] }
        return connect.transform(input, state: child).map(Action.connect)
    }

    private func toDetail(_ input: NetworkDetail.Input, _ state: State) -> [Action] {
        guard case .detail(let child) = state.destination else { return [] }
        return detail.transform(input, state: child).map(Action.detail)
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        defer { Self.derive(&state) }
        switch action {
        case .startScanning:
            state.isScanning = true
            return .every(Self.scanInterval, on: clock, id: Self.scanEffect, send: .scanTick)
        case .stopScanning:
            state.isScanning = false
            return .cancel(id: Self.scanEffect)
        case .scanTick:
            Self.scan(&state, random)
            return .none
        case .setWiFi(let isOn):
            state.isOn = isOn
            // With the list hidden there is nothing to be on top of.
            return isOn ? .none : dismiss(&state)
        case .select(let network):
            state.selectedNetworkID = network.id
            return .none
        case .present(let destination):
            let cancelled = dismiss(&state)
            state.destination = destination
            return cancelled
        case .dismiss:
            return dismiss(&state)
        case .connect(.delegate(.connected(let network))):
            state.selectedNetworkID = network.id
            return dismiss(&state)
        case .detail(.delegate(.confirmedForget(let network))):
            if state.selectedNetworkID == network.id { state.selectedNetworkID = nil }
            return dismiss(&state)
        case .connect(let childAction):
            guard case .connect(var child) = state.destination else { return .none }
            let effect = connect.perform(childAction, state: &child)
            state.destination = .connect(child)
            return effect.map(Action.connect)
        case .detail(let childAction):
            guard case .detail(var child) = state.destination else { return .none }
            let effect = detail.perform(childAction, state: &child)
            state.destination = .detail(child)
            return effect.map(Action.detail)
        }
    }

    /// Closes the destination; a connect screen's join in flight is cancelled with it.
    private func dismiss(_ state: inout State) -> Effect<Action> {
        let wasConnecting: Bool
        if case .connect = state.destination { wasConnecting = true } else { wasConnecting = false }
        state.destination = nil
        return wasConnecting ? .cancel(id: ConnectToNetwork.joinEffect) : .none
    }

    /// The heading over the networks when none is selected, and below a selected one.
    static let networksHeading = "Networks"
    static let otherNetworksHeading = "Other Networks"

    /// Recomputes `selectedNetwork`, `otherNetworks` and the fields drawn from them from
    /// the rest (after every action).
    public static func derive(_ state: inout State) {
        state.signalBarsMaximum = Network.signalBarsMaximum
        guard state.isOn else {
            state.selectedNetwork = nil
            state.otherNetworks = []
            state.otherNetworksHeading = networksHeading
            return
        }
        state.selectedNetwork = state.foundNetworks.first { $0.id == state.selectedNetworkID }
        state.otherNetworks = state.foundNetworks.filter { $0.id != state.selectedNetworkID }
        state.otherNetworksHeading = state.selectedNetwork == nil ? networksHeading : otherNetworksHeading
    }

    /// One tick of the live scan: a signal changes, a network appears, or one goes
    /// away (never the selected one, and never below two networks).
    static func scan(_ state: inout State, _ random: RandomSource) {
        let unselected = state.foundNetworks.indices.filter { state.foundNetworks[$0].id != state.selectedNetworkID }
        switch random.int(in: 0...9) {
        case 0...3:
            guard !unselected.isEmpty else { return }
            let index = unselected[random.int(in: 0...(unselected.count - 1))]
            state.foundNetworks[index].connectivity = Double(random.int(in: 1...10)) / 10
        case 4...6:
            let absent = Network.passersBy.filter { name in !state.foundNetworks.contains { $0.name == name } }
            guard !absent.isEmpty else { return }
            let name = absent[random.int(in: 0...(absent.count - 1))]
            let id = name.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
            state.foundNetworks.append(
                Network(
                    id: id, name: name, isSecured: random.int(in: 0...1) == 1, connectivity: Double(random.int(in: 1...10)) / 10))
        default:
            guard unselected.count > 1, state.foundNetworks.count > 2 else { return }
            state.foundNetworks.remove(at: unselected[random.int(in: 0...(unselected.count - 1))])
        }
    }
}
