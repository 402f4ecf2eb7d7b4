import FusionKit
import Testing

@testable import FusionExamples

/// Every example feature, given a state through the creation options (what a `--state`
/// file, Python's `restore`, a checkpoint and a page's `options.state` all come down to):
/// its derived values are recomputed from the state's own fields, never taken as given.
@Suite struct RestoredStateTests {
    /// The state an instance of `F` starts in when created with `options`.
    private func restored<F: Feature>(_ type: F.Type, _ options: JSONValue) throws -> JSONValue {
        let instance = try FeatureDefinition(F.self).makeInstance(options: InstanceOptions(json: options))
        defer { instance.close() }
        return try JSONParser.parse(instance.stateJSON().bytes)
    }

    private func refusal<F: Feature>(_ type: F.Type, _ options: JSONValue) -> String {
        do {
            _ = try restored(F.self, options)
        } catch let error as FusionError {
            #expect(error.status == .invalidState)
            return error.message
        } catch {
            Issue.record("unexpected \(error)")
        }
        Issue.record("expected a refusal")
        return ""
    }

    private static func network(
        _ id: String, _ connectivity: JSONValue, bars: JSONValue? = nil, percent: JSONValue? = nil, label: JSONValue? = nil
    ) -> JSONValue {
        var members = [
            JSONMember("id", .string(id)), JSONMember("name", .string(id.uppercased())), JSONMember("isSecured", true),
            JSONMember("connectivity", connectivity)
        ]
        if let bars { members.append(JSONMember("signalBars", bars)) }
        if let percent { members.append(JSONMember("signalPercent", percent)) }
        if let label { members.append(JSONMember("securityLabel", label)) }
        return .object(members)
    }

    @Test func wifiRecomputesEverySignalAndTheSelectedNetwork() throws {
        let lying = Self.network("a", 0, bars: 3, percent: 100, label: "WPA2/WPA3 Personal")
        let state = try restored(
            WiFiSettings.self,
            [
                "state": [
                    "isOn": true, "foundNetworks": [lying, Self.network("b", 0.5, bars: 0, percent: 7)], "selectedNetworkID": "b",
                    "destination": [
                        "detail": ["network": lying, "forgetAlertIsPresented": false, "forgetAlert": AlertText.forgetJSON("A")]
                    ],
                    "isScanning": false, "selectedNetwork": lying, "otherNetworks": [], "otherNetworksHeading": "Networks",
                    "signalBarsMaximum": 5
                ]
            ])
        #expect(state["foundNetworks"]?.elements?.first?["securityLabel"] == "Secured")
        #expect(state["destination"]?["detail"]?["network"]?["securityLabel"] == "Secured")
        #expect(state["otherNetworksHeading"] == "Other Networks")
        #expect(state["signalBarsMaximum"] == 3)
        #expect(state["foundNetworks"]?.elements?.first?["signalBars"] == 0)
        #expect(state["foundNetworks"]?.elements?.first?["signalPercent"] == 0)
        #expect(state["foundNetworks"]?.elements?.last?["signalBars"] == 2)
        #expect(state["foundNetworks"]?.elements?.last?["signalPercent"] == 50)
        #expect(state["destination"]?["detail"]?["network"]?["signalBars"] == 0)
        #expect(state["selectedNetwork"]?["id"] == "b")
        #expect(state["selectedNetwork"]?["signalBars"] == 2)
        #expect(state["otherNetworks"]?.elements?.map { $0["id"] } == ["a"])
    }

    @Test func wifiDerivedFieldsMayBeLeftOut() throws {
        let state = try restored(
            WiFiSettings.self,
            ["state": ["isOn": true, "foundNetworks": [Self.network("a", 0.9)], "selectedNetworkID": "a", "isScanning": false]])
        #expect(state["foundNetworks"]?.elements?.first?["signalBars"] == 3)
        #expect(state["foundNetworks"]?.elements?.first?["signalPercent"] == 90)
        #expect(state["selectedNetwork"]?["signalBars"] == 3)
        #expect(state["selectedNetwork"]?["securityLabel"] == "Secured")
        #expect(state["otherNetworks"] == [])
        #expect(state["otherNetworksHeading"] == "Other Networks")
        #expect(state["signalBarsMaximum"] == 3)
    }

    @Test func wifiRefusesAMissingFieldItCannotDeriveAndNamesIt() {
        let message = refusal(
            WiFiSettings.self,
            [
                "state": ["isOn": true, "foundNetworks": [["id": "a", "name": "A", "isSecured": true]], "isScanning": false],
                "stateVersion": 2
            ])
        #expect(
            message
                == "the given state does not fit feature \"wifi\" (state version 2): at $.foundNetworks[0]: missing field \"connectivity\"")
    }

    @Test func theConnectScreenRecomputesWhatCanBeTapped() throws {
        let connect: JSONValue = [
            "network": Self.network("a", 1), "password": "x", "isConnecting": false, "incorrectPasswordAlertIsPresented": false,
            "incorrectPasswordAlert": AlertText.incorrectPasswordJSON("A"), "isJoinEnabled": false, "isPasswordEditable": false
        ]
        let state = try restored(
            WiFiSettings.self,
            ["state": ["isOn": true, "foundNetworks": [Self.network("a", 1)], "destination": ["connect": connect], "isScanning": false]])
        #expect(state["destination"]?["connect"]?["isJoinEnabled"] == true)
        #expect(state["destination"]?["connect"]?["isPasswordEditable"] == true)
    }

    @Test func aVersionOneWiFiStateIsMigratedWithItsAlertsWords() throws {
        let connect: JSONValue = [
            "network": Self.network("a", 1), "password": "x", "isConnecting": false, "incorrectPasswordAlertIsPresented": true
        ]
        let state = try restored(
            WiFiSettings.self,
            [
                "state": ["isOn": true, "foundNetworks": [Self.network("a", 1)], "destination": ["connect": connect], "isScanning": false],
                "stateVersion": 1
            ])
        #expect(state["destination"]?["connect"]?["incorrectPasswordAlertIsPresented"] == true)
        #expect(state["destination"]?["connect"]?["incorrectPasswordAlert"] == AlertText.incorrectPasswordJSON("A"))
        let detail = try restored(
            WiFiSettings.self,
            [
                "state": [
                    "isOn": true, "foundNetworks": [Self.network("a", 1)],
                    "destination": ["detail": ["network": Self.network("a", 1), "forgetAlertIsPresented": true]], "isScanning": false
                ],
                "stateVersion": 1
            ])
        #expect(detail["destination"]?["detail"]?["forgetAlert"] == AlertText.forgetJSON("A"))
    }

    @Test func aVersionOneStateGivenAsCurrentSaysWhichVersionToGive() {
        let message = refusal(
            WiFiSettings.self,
            [
                "state": [
                    "isOn": true, "foundNetworks": [Self.network("a", 1)],
                    "destination": ["detail": ["network": Self.network("a", 1), "forgetAlertIsPresented": true]], "isScanning": false
                ]
            ])
        #expect(message.contains("at $.destination.detail: missing field \"forgetAlert\""))
        #expect(
            message.hasSuffix("if it was saved by another version of feature \"wifi\", give its \"stateVersion\" (this library's is 2)"))
    }

    @Test func answerRecomputesWhetherSubmitIsEnabled() throws {
        let blank = try restored(Answer.self, ["state": ["answer": "   ", "isSubmitEnabled": true, "isSubmitting": false]])
        #expect(blank["isSubmitEnabled"] == false)
        let busy = try restored(Answer.self, ["state": ["answer": "hi", "isSubmitEnabled": true, "isSubmitting": true]])
        #expect(busy["isSubmitEnabled"] == false)
        let ready = try restored(Answer.self, ["state": ["answer": "hi", "isSubmitting": false]])
        #expect(ready["isSubmitEnabled"] == true)
    }

    @Test func counterIsNeverResetBesideAValueOtherThanZero() throws {
        let state = try restored(Counter.self, ["state": ["value": 5, "isReset": true]])
        #expect(state["isReset"] == false)
        #expect(state["value"] == 5)
        #expect(try restored(Counter.self, ["state": ["value": 0, "isReset": true]])["isReset"] == true)
    }

    @Test func homeWithTheLoadedTitleHasItsViewLoaded() throws {
        let state = try restored(Home.self, ["state": ["title": "ViewDidLoad Action", "desc": "Number 3", "isViewLoaded": false]])
        #expect(state["isViewLoaded"] == true)
        // So a page reloaded onto it draws no second number.
        let instance = try FeatureDefinition(Home.self).makeInstance(
            options: InstanceOptions(json: ["state": ["title": "ViewDidLoad Action", "desc": "Number 3", "isViewLoaded": false]]))
        defer { instance.close() }
        try Array(#""viewDidLoad""#.utf8).withUnsafeBytes { try instance.send(json: $0) }
        #expect(try JSONParser.parse(instance.stateJSON().bytes)["desc"] == "Number 3")
    }

    @Test func profileRecomputesLoadingAndWhoIsSignedIn() throws {
        let given: JSONValue = ["pending": [], "isLoading": true, "signedInAs": "Admin"]
        let alice = try restored(ProfileStore.self, ["state": given, "user": ["subject": "alice", "claims": ["name": "Alice"]]])
        #expect(alice["signedInAs"] == "Alice")
        #expect(alice["isLoading"] == false)
        // Nobody signed in: the page cannot name anyone.
        #expect(try restored(ProfileStore.self, ["state": given])["signedInAs"] == .null)
        // Left out: derived all the same.
        let bob = try restored(ProfileStore.self, ["state": ["pending": ["pet"]], "user": ["subject": "bob"]])
        #expect(bob["signedInAs"] == "bob")
        #expect(bob["isLoading"] == true)
    }

    @Test func anEmptyNameClaimFallsBackToTheSubject() throws {
        let state = try restored(ProfileStore.self, ["user": ["subject": "alice", "claims": ["name": ""]]])
        #expect(state["signedInAs"] == "alice")
        let blank = try restored(ProfileStore.self, ["state": ["pending": []], "user": ["subject": "carol", "claims": ["name": "  "]]])
        #expect(blank["signedInAs"] == "carol")
    }
}

extension AlertText {
    /// The alerts' words as this version writes them, for the expectations above.
    static func incorrectPasswordJSON(_ name: String) -> JSONValue {
        [
            "title": "Incorrect Password", "message": .string("The password for “\(name)” is not correct."), "actionLabel": "OK",
            "cancelLabel": nil
        ]
    }

    static func forgetJSON(_ name: String) -> JSONValue {
        [
            "title": .string("Forget Wi-Fi Network “\(name)”?"), "message": "Your device will no longer join this network automatically.",
            "actionLabel": "Forget", "cancelLabel": "Cancel"
        ]
    }
}
