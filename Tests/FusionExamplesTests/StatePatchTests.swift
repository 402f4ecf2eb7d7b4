import FusionKit
import RuleVectors
import Testing

@testable import FusionExamples

@Suite struct StatePatchTests {
    /// The JSON text the library writes, read back: what a patch is applied to and compared
    /// with (the text is the contract; `1.0` and `1` are one number in it).
    func json<T: Encodable>(_ value: T) throws -> JSONValue { try JSONParser.parse(JSONStreamEncoder().encode(value)) }

    func expectPatchWorks(_ old: WiFiSettings.State, _ new: WiFiSettings.State) throws -> [JSONValue] {
        let patch = try StateDiff.patch(from: old, to: new)
        #expect(try JSONPatch.apply(patch, to: json(old)) == json(new))
        return patch
    }

    func networks(_ count: Int) -> [Network] {
        (0..<count).map { Network(id: "n\($0)", name: "Network \($0)", isSecured: $0 % 3 == 0, connectivity: Double($0 % 10) / 10) }
    }

    @Test func equalStatesGiveAnEmptyPatch() throws {
        let state = WiFiSettings.State(foundNetworks: networks(50))
        #expect(try expectPatchWorks(state, state).isEmpty)
    }

    @Test func oneChangedNetworkGivesOneSmallOperationPerList() throws {
        let old = WiFiSettings.State(foundNetworks: networks(1000))
        var new = old
        new.foundNetworks[417].connectivity = 0.25
        WiFiSettings.derive(&new)
        let patch = try expectPatchWorks(old, new)
        // The strength and its derived bars and percent, in foundNetworks and the derived otherNetworks.
        #expect(patch.count == 6)
        #expect(patch.contains { $0["path"] == "/foundNetworks/417/connectivity" && $0["value"] == 0.25 })
        #expect(patch.contains { $0["path"] == "/foundNetworks/417/signalBars" && $0["value"] == 1 })
        #expect(patch.contains { $0["path"] == "/otherNetworks/417/signalPercent" && $0["value"] == 25 })
    }

    @Test func networksComingAndGoingAreAddsAndRemoves() throws {
        let old = WiFiSettings.State(foundNetworks: networks(20))
        var gone = old
        gone.foundNetworks.remove(at: 5)
        WiFiSettings.derive(&gone)
        #expect(try expectPatchWorks(old, gone).contains { $0["op"] == "remove" && $0["path"] == "/foundNetworks/5" })
        var added = old
        added.foundNetworks.append(Network(id: "new", name: "New"))
        WiFiSettings.derive(&added)
        #expect(try expectPatchWorks(old, added).contains { $0["op"] == "add" && $0["path"] == "/foundNetworks/20" })
    }

    @Test func navigationChangesAreReplacedOrDescended() throws {
        var old = WiFiSettings.State(foundNetworks: networks(5))
        var new = old
        new.destination = .connect(ConnectToNetwork.State(network: old.foundNetworks[0]))
        _ = try expectPatchWorks(old, new)
        old = new
        if case .connect(var screen)? = new.destination {
            screen.password = "blo"
            new.destination = .connect(screen)
        }
        let patch = try expectPatchWorks(old, new)
        #expect(patch.map { $0["path"] } == ["/destination/connect/password"])
        old = new
        new.destination = .detail(NetworkDetail.State(network: old.foundNetworks[1]))
        _ = try expectPatchWorks(old, new)
        old = new
        new.destination = nil
        new.selectedNetworkID = "n2"
        WiFiSettings.derive(&new)
        _ = try expectPatchWorks(old, new)
    }

    @Test func randomScansAlwaysPatchCorrectly() throws {
        let random = RandomSource(seed: 99)
        var state = WiFiSettings.State(foundNetworks: networks(30), selectedNetworkID: "n3")
        for _ in 0..<200 {
            var next = state
            WiFiSettings.scan(&next, random)
            if random.int(in: 0...9) == 0 { next.isOn.toggle() }
            WiFiSettings.derive(&next)
            _ = try expectPatchWorks(state, next)
            state = next
        }
    }

    @Test func patchesWalkPlannedStatesFieldByField() throws {
        // Once the state has been encoded, its types have plans, and the differ walks their
        // fields in memory instead of capturing encode(to:) calls: the same patches.
        var state = WiFiSettings.State(foundNetworks: networks(40), selectedNetworkID: "n3")
        state.destination = .connect(ConnectToNetwork.State(network: state.foundNetworks[0]))
        _ = try JSONStreamEncoder().encode(state)
        _ = try JSONStreamEncoder().encode(state)
        let random = RandomSource(seed: 7)
        for step in 0..<200 {
            var next = state
            WiFiSettings.scan(&next, random)
            if step % 17 == 0 { next.foundNetworks[step % next.foundNetworks.count].name += "!" }
            if step % 23 == 0 { next.destination = step % 2 == 0 ? nil : .detail(NetworkDetail.State(network: next.foundNetworks[0])) }
            WiFiSettings.derive(&next)
            _ = try expectPatchWorks(state, next)
            state = next
        }
        var renamed = state
        renamed.foundNetworks[1].name = "Renamed"
        WiFiSettings.derive(&renamed)
        let patch = try expectPatchWorks(state, renamed)
        #expect(patch.contains { $0["path"] == "/foundNetworks/1/name" && $0["value"] == "Renamed" })
        // An optional field walked in memory is still descended into.
        var typing = renamed
        typing.destination = .connect(ConnectToNetwork.State(network: typing.foundNetworks[0]))
        _ = try JSONStreamEncoder().encode(typing)
        var typed = typing
        if case .connect(var screen)? = typed.destination {
            screen.password = "blo"
            typed.destination = .connect(screen)
        }
        #expect(try expectPatchWorks(typing, typed).map { $0["path"] } == ["/destination/connect/password"])
    }

    /// An optional whose value has no spare bit patterns (two integers) keeps its tag in a
    /// byte after the value: nil and a zero point differ only there.
    struct Point: Codable, Equatable { var x: Int; var y: Int }
    struct Marked: Codable, Equatable {
        var flag = false
        var point: Point?
        var weight = 0.5
        var network: Network?
    }

    @Test func plannedOptionalsAreComparedByTheirValueAndTag() throws {
        let start = Marked()
        // Twice: then the types have plans, and the differ walks their fields in memory.
        _ = try JSONStreamEncoder().encode(start)
        _ = try JSONStreamEncoder().encode(Marked(flag: true, point: Point(x: 1, y: 2), weight: 1, network: networks(1)[0]))
        func expectPatch(_ old: Marked, _ new: Marked, _ paths: [String]) throws {
            let patch = try StateDiff.patch(from: old, to: new)
            #expect(try JSONPatch.apply(patch, to: json(old)) == json(new))
            #expect(patch.map { $0["path"]?.stringValue ?? "" } == paths)
        }
        var zero = start
        zero.point = Point(x: 0, y: 0)
        try expectPatch(start, zero, ["/point"])
        try expectPatch(zero, start, ["/point"])
        var moved = zero
        moved.point?.y = 3
        try expectPatch(zero, moved, ["/point/y"])
        var joined = start
        joined.network = networks(3)[2]
        try expectPatch(start, joined, ["/network"])
        var renamed = joined
        renamed.network?.name = "Renamed"
        renamed.flag = true
        try expectPatch(joined, renamed, ["/flag", "/network/name"])
        try expectPatch(renamed, start, ["/flag", "/network"])
        try expectPatch(renamed, renamed, [])
    }

    /// A Wi-Fi store with enough networks that a patch costs less than the state.
    func wifiStore(networks count: Int) -> Store<WiFiSettings> {
        Store<WiFiSettings>(
            environment: Environment(clock: ManualClock(), settings: ["liveScan": .bool(false)]),
            state: WiFiSettings.State(foundNetworks: networks(count)))
    }

    @Test func aStoreGivesPatchesFromRecentVersionsAndTheWholeStateOtherwise() throws {
        let store = wifiStore(networks: 40)
        let first = try JSONParser.parse(store.patch(since: 7).bytes)
        #expect(first["from"] == .null)
        #expect(first["state"]?["isOn"] == true)
        let before = try JSONParser.parse(store.encodedState().bytes)
        store.send(.infoButtonTapped(id: "n3"))
        store.send(.destinationDismissed)
        store.send(.infoButtonTapped(id: "n5"))
        let patch = try JSONParser.parse(store.patch(since: 0).bytes)
        #expect(patch["from"] == 0)
        #expect(patch["to"] == 3)
        guard case .array(let operations)? = patch["patch"] else {
            Issue.record("no operations")
            return
        }
        #expect(operations.count == 1)
        #expect(try JSONPatch.apply(operations, to: before) == JSONParser.parse(store.encodedState().bytes))
        #expect(try JSONParser.parse(store.patch(since: 3).bytes)["patch"] == [])
        for step in 0..<(Store<WiFiSettings>.patchHistoryLimit + 1) {
            store.send(step.isMultiple(of: 2) ? .destinationDismissed : .infoButtonTapped(id: "n1"))
        }
        #expect(try JSONParser.parse(store.patch(since: 1).bytes)["state"] != nil)
    }

    @Test func aSmallStateIsAnsweredWholeEvenFromAKeptVersion() throws {
        // The Counter's state is a few dozen bytes: writing it costs less than a diff, and
        // its patch would be as long as the state (StatePatchCost).
        let store = Store<Counter>()
        _ = try store.patch(since: 0)
        _ = try store.encodedState()
        store.send(.increase)
        let answer = try JSONParser.parse(store.patch(since: 0).bytes)
        #expect(answer["from"] == .null)
        #expect(answer["to"] == 1)
        #expect(answer["state"]?["value"] == 1)
        #expect(try JSONParser.parse(store.patch(since: 1).bytes)["patch"] == [])
    }

    @Test func aPatchNeverHasAsManyBytesAsTheWholeState() throws {
        // Every score changes: the array is replaced whole, and the operation saying so is
        // longer than the state itself.
        struct Scores: Codable, Equatable { var values: [Int] }
        let old = Scores(values: Array(1000..<1300))
        let new = Scores(values: Array(2000..<2300))
        let whole = try JSONStreamEncoder().encode(new)
        #expect(whole.count >= 1024)  // above StatePatchCost.wholeBelow: the diff is tried
        let answer = try StatePatch.json(from: old, version: 1, to: new, version: 2, wholeBytes: whole.count) { (whole, 2) }
        let parsed = try JSONParser.parse(answer.bytes)
        #expect(parsed["from"] == .null)
        #expect(parsed["state"] == (try JSONParser.parse(whole)))
        // One score changes: a patch, far shorter.
        var one = old
        one.values[7] = 7
        let patched = try StatePatch.json(from: old, version: 1, to: one, version: 2, wholeBytes: whole.count) { (whole, 2) }
        let patch = try JSONParser.parse(patched.bytes)
        #expect(patch["patch"] == [["op": "replace", "path": "/values/7", "value": 7]])
    }
}
