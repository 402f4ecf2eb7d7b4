import FusionKit
import Testing

@testable import FusionExamples

/// Seed 003's Wi-Fi settings, input by input: the state after it and the effects it starts.
@Suite(.timeLimit(.minutes(1))) struct WiFiSettingsTests {
    let networks = [
        Network(id: "home", name: "Home", isSecured: true, connectivity: 1),
        Network(id: "cafe", name: "Cafe", isSecured: false, connectivity: 0.5),
        Network(id: "work", name: "Work", isSecured: true, connectivity: 0.7)
    ]

    func makeStore(selected: String? = nil, clock: ManualClock = ManualClock(), liveScan: Bool = false) -> Store<WiFiSettings> {
        Store<WiFiSettings>(
            environment: Environment(clock: clock, random: RandomSource(seed: 7), settings: ["liveScan": .bool(liveScan)]),
            state: WiFiSettings.State(foundNetworks: networks, selectedNetworkID: selected))
    }

    @Test func theSelectedNetworkIsShownApart() {
        let store = makeStore(selected: "work")
        #expect(store.state.selectedNetwork?.id == "work")
        #expect(store.state.otherNetworks.map(\.id) == ["home", "cafe"])
    }

    @Test func turningWiFiOffHidesEveryNetwork() {
        let store = makeStore(selected: "work")
        store.send(.wifiToggled(isOn: false))
        #expect(store.state.selectedNetwork == nil)
        #expect(store.state.otherNetworks.isEmpty)
        store.send(.networkTapped(id: "cafe"))  // hidden: nothing to tap
        #expect(store.state.selectedNetworkID == "work")
        store.send(.wifiToggled(isOn: true))
        #expect(store.state.selectedNetwork?.id == "work")
    }

    @Test func tappingAnOpenNetworkJoinsItAtOnce() {
        let store = makeStore()
        store.send(.networkTapped(id: "cafe"))
        #expect(store.state.selectedNetworkID == "cafe")
        #expect(store.state.destination == nil)
    }

    @Test func tappingASecuredNetworkOpensConnect() {
        let store = makeStore()
        store.send(.networkTapped(id: "home"))
        #expect(store.state.destination == .connect(ConnectToNetwork.State(network: networks[0])))
        #expect(store.state.selectedNetworkID == nil)
    }

    @Test func tappingTheSelectedNetworkOpensItsDetail() {
        let store = makeStore(selected: "home")
        store.send(.networkTapped(id: "home"))
        #expect(store.state.destination == .detail(NetworkDetail.State(network: networks[0])))
    }

    @Test func theInfoButtonOpensTheDetailOfAnyNetwork() {
        let store = makeStore()
        store.send(.infoButtonTapped(id: "cafe"))
        #expect(store.state.destination == .detail(NetworkDetail.State(network: networks[1])))
    }

    @Test func joiningWithBlobTakesASecondThenSelectsAndDismisses() async {
        let clock = ManualClock()
        let store = makeStore(clock: clock)
        store.send(.networkTapped(id: "home"))
        store.send(.passwordChanged(password: "blob"))
        store.send(.joinButtonTapped)
        guard case .connect(let connecting)? = store.state.destination else {
            Issue.record("no connect screen")
            return
        }
        #expect(connecting.isConnecting)
        let version = store.version
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(999))
        #expect(store.version == version)  // still connecting
        clock.advance(by: .milliseconds(1))
        await store.waitUntil(version: version + 1)
        #expect(store.state.selectedNetworkID == "home")
        #expect(store.state.destination == nil)
        #expect(store.state.selectedNetwork?.id == "home")
    }

    @Test func aWrongPasswordShowsTheAlertAndStays() async {
        let clock = ManualClock()
        let store = makeStore(clock: clock)
        store.send(.networkTapped(id: "work"))
        store.send(.passwordChanged(password: "hunter2"))
        store.send(.joinButtonTapped)
        let version = store.version
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.waitUntil(version: version + 1)
        guard case .connect(let screen)? = store.state.destination else {
            Issue.record("connect screen gone")
            return
        }
        #expect(screen.incorrectPasswordAlertIsPresented)
        #expect(!screen.isConnecting)
        #expect(store.state.selectedNetworkID == nil)
        store.send(.incorrectPasswordAlertDismissed)
        guard case .connect(let after)? = store.state.destination else {
            Issue.record("the alert's dismissal closed the connect screen")
            return
        }
        #expect(!after.incorrectPasswordAlertIsPresented)
    }

    @Test func joinAndThePasswordAreDisabledWhileJoiningAndTheFeatureHoldsToIt() async {
        let clock = ManualClock()
        let store = makeStore(clock: clock)
        store.send(.networkTapped(id: "work"))
        guard case .connect(let before)? = store.state.destination else {
            Issue.record("no connect screen")
            return
        }
        #expect(before.isJoinEnabled && before.isPasswordEditable)
        store.send(.passwordChanged(password: "hunter2"))
        store.send(.joinButtonTapped)
        guard case .connect(let joining)? = store.state.destination else {
            Issue.record("no connect screen")
            return
        }
        #expect(!joining.isJoinEnabled && !joining.isPasswordEditable)
        let version = store.version
        store.send(.passwordChanged(password: "blob"))  // what a disabled field cannot send
        store.send(.joinButtonTapped)
        #expect(store.version == version)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.waitUntil(version: version + 1)
        guard case .connect(let failed)? = store.state.destination else {
            Issue.record("connect screen gone")
            return
        }
        #expect(failed.password == "hunter2" && failed.isJoinEnabled && failed.isPasswordEditable)
    }

    @Test(arguments: [
        (0.0, 0, 0), (0.05, 1, 5), (0.3, 1, 30), (0.34, 2, 34), (0.5, 2, 50), (0.6, 2, 60), (0.67, 3, 67),
        (0.9, 3, 90), (1.0, 3, 100), (1.5, 3, 100), (-1.0, 0, 0), (Double.nan, 0, 0)
    ])
    func signalBarsAndPercentComeFromTheConnectivity(_ connectivity: Double, _ bars: Int, _ percent: Int) {
        var network = Network(id: "n", name: "N", connectivity: connectivity)
        #expect(network.signalBars == bars && network.signalPercent == percent)
        network.connectivity = 1 - (connectivity.isNaN ? 0 : connectivity)  // a change keeps them in step
        #expect((network.signalBars, network.signalPercent) == Network.signal(network.connectivity))
    }

    @Test func dismissingTheConnectScreenCancelsTheJoin() async {
        let clock = ManualClock()
        let store = makeStore(clock: clock)
        store.send(.networkTapped(id: "home"))
        store.send(.passwordChanged(password: "blob"))
        store.send(.joinButtonTapped)
        await clock.waitForSleepers(1)
        store.send(.destinationDismissed)
        #expect(store.state.destination == nil)
        #expect(clock.sleeperCount == 0)  // the join effect was cancelled
        #expect(clock.advance(by: .seconds(2)) == 0)
        #expect(store.state.selectedNetworkID == nil)
    }

    @Test func forgettingAsksFirstThenDeselectsAndDismisses() {
        let store = makeStore(selected: "home")
        store.send(.networkTapped(id: "home"))
        store.send(.confirmForgetNetworkButtonTapped)  // no alert up: nothing to confirm
        #expect(store.state.selectedNetworkID == "home")
        store.send(.forgetNetworkButtonTapped)
        #expect(store.state.destination == .detail(NetworkDetail.State(network: networks[0], forgetAlertIsPresented: true)))
        store.send(.forgetAlertDismissed)
        #expect(store.state.destination == .detail(NetworkDetail.State(network: networks[0])))
        store.send(.forgetNetworkButtonTapped)
        store.send(.confirmForgetNetworkButtonTapped)
        #expect(store.state.selectedNetworkID == nil)
        #expect(store.state.destination == nil)
    }

    /// What every screen draws and none may decide: the security words, the heading over
    /// the networks, and how many bars there are.
    @Test func theStateSaysTheWordsAndTheScaleEveryScreenDraws() {
        let store = makeStore()
        #expect(store.state.otherNetworks.map(\.securityLabel) == ["Secured", "Open", "Secured"])
        #expect(store.state.otherNetworksHeading == "Networks")
        #expect(store.state.signalBarsMaximum == 3)
        #expect(store.state.foundNetworks.allSatisfy { (0...store.state.signalBarsMaximum).contains($0.signalBars) })
        store.send(.networkTapped(id: "cafe"))
        #expect(store.state.selectedNetwork?.securityLabel == "Open")
        #expect(store.state.otherNetworksHeading == "Other Networks")
        store.send(.wifiToggled(isOn: false))
        #expect(store.state.otherNetworksHeading == "Networks")  // nothing shown apart
        store.send(.wifiToggled(isOn: true))
        #expect(store.state.otherNetworksHeading == "Other Networks")
        store.send(.infoButtonTapped(id: "cafe"))
        store.send(.forgetNetworkButtonTapped)
        store.send(.confirmForgetNetworkButtonTapped)
        #expect(store.state.otherNetworksHeading == "Networks")
    }

    @Test func theSecurityLabelFollowsIsSecured() {
        var network = Network(id: "n", name: "N", isSecured: false)
        #expect(network.securityLabel == "Open")
        network.isSecured = true
        #expect(network.securityLabel == "Secured")
    }

    @Test func joinWhileJoiningIsIgnoredAndDoesNotStartTheJoinAgain() async {
        let clock = ManualClock()
        let store = makeStore(clock: clock)
        store.send(.networkTapped(id: "work"))
        store.send(.passwordChanged(password: "hunter2"))
        store.send(.joinButtonTapped)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(500))
        let version = store.version
        store.send(.joinButtonTapped)  // Join is disabled
        #expect(store.version == version)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(500))  // one second after the first tap
        await store.waitUntil(version: version + 1)
        guard case .connect(let screen)? = store.state.destination else {
            Issue.record("connect screen gone")
            return
        }
        #expect(screen.incorrectPasswordAlertIsPresented && screen.isJoinEnabled)
    }

    @Test func childInputsWithoutTheirScreenAreIgnored() {
        let store = makeStore()
        store.send(.joinButtonTapped)
        store.send(.forgetNetworkButtonTapped)
        #expect(store.version == 0)
    }

    @Test func networksComeAndGoWhileTheScreenIsOpen() async {
        let clock = ManualClock()
        let store = makeStore(selected: "home", clock: clock, liveScan: true)
        store.send(.screenAppeared)
        #expect(store.state.isScanning)
        var lists: Set<[String]> = [store.state.foundNetworks.map(\.id)]
        await clock.waitForSleepers(1)
        for _ in 0..<12 {
            // A tick may change nothing; once the scan sleeps again, the tick is applied.
            clock.advance(by: WiFiSettings.scanInterval)
            await clock.waitForSleepers(1)
            lists.insert(store.state.foundNetworks.map(\.id))
            #expect(store.state.foundNetworks.contains { $0.id == "home" })  // the selected one stays
            #expect(store.state.foundNetworks.count >= 2)
        }
        #expect(lists.count > 1)
        store.send(.screenDisappeared)
        #expect(!store.state.isScanning)
        #expect(clock.sleeperCount == 0)
    }

    @Test func theLiveScanCanBeTurnedOff() {
        let store = makeStore(liveScan: false)
        store.send(.screenAppeared)
        #expect(!store.state.isScanning)
        #expect(store.runningEffectCount == 0)
    }

    @Test func destinationIsWrittenAsOneTaggedObject() throws {
        let store = makeStore()
        store.send(.networkTapped(id: "home"))
        let json = try JSONParser.parse(store.encodedState().bytes)
        #expect(json["destination"]?["connect"]?["network"]?["id"] == "home")
        #expect(json["destination"]?["connect"]?["password"] == "")
    }
}

extension NetworkDetail.State {
    init(network: Network, forgetAlertIsPresented: Bool) {
        self.init(network: network)
        self.forgetAlertIsPresented = forgetAlertIsPresented
    }
}
