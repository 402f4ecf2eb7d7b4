import Testing

@testable import FusionKit

/// A feature whose state shape changed twice: version 1 had `label`, version 2 renamed
/// it `title`, version 3 added `tags`. It migrates from 2 only, as an author might after
/// dropping support for the oldest saves.
private struct Note: Feature {
    static let name = "note"
    static let stateVersion = 3

    @JSONCoded

    enum Input: JSONCoded, Sendable { case touch }
    enum Action: Sendable { case touch }
    @JSONCoded
    struct State: JSONCoded, Equatable, Sendable {
        var title: String
        var tags: [String]
        var pinned: String?
    }

    init(environment: Environment) {}
    var initialState: State { State(title: "", tags: []) }
    func transform(_ input: Input, state: State) -> [Action] { [.touch] }
    func perform(_ action: Action, state: inout State) -> Effect<Action> { .none }

    static func migrateState(_ state: JSONValue, from version: Int) throws(StateMigrationError) -> JSONValue {
        guard version == 2 else { throw NoStateMigration() }
        guard case .object(var members) = state, members.contains(where: { $0.key == "title" }) else {
            throw StateMigrationError("no title to carry over")
        }
        members.append(JSONMember("tags", []))
        return .object(members)
    }
}

/// A feature that never raised its version.
private struct Plain: Feature {
    static let name = "plain"
    @JSONCoded
    enum Input: JSONCoded, Sendable { case touch }
    enum Action: Sendable { case touch }
    @JSONCoded
    struct State: JSONCoded, Equatable, Sendable {
        var count: Int
        var items: [Item]
        @JSONCoded
        struct Item: JSONCoded, Equatable, Sendable { var name: String }
    }
    init(environment: Environment) {}
    var initialState: State { State(count: 0, items: []) }
    func transform(_ input: Input, state: State) -> [Action] { [] }
    func perform(_ action: Action, state: inout State) -> Effect<Action> { .none }
}

/// A feature with derived values, one nested in a list: `total` sums the items' `count`s,
/// each item's `isEmpty` says whether its count is 0, `greeting` names the user.
private struct Tally: Feature {
    static let name = "tally"
    @JSONCoded
    enum Input: JSONCoded, Sendable { case touch }
    enum Action: Sendable { case touch }
    @JSONCoded
    struct State: JSONCoded, Equatable, Sendable, DerivedFields {
        var items: [Item]
        var total: Int
        var greeting: String?
        var names: [String]
        static let derivedFields: Set<String> = ["total", "greeting", "names"]
    }
    @JSONCoded
    struct Item: JSONCoded, Equatable, Sendable, DerivedFields {
        var count: Int
        var isEmpty: Bool
        static let derivedFields: Set<String> = ["isEmpty"]
    }
    let user: String?
    init(environment: Environment) { user = environment.user?.subject }
    var initialState: State { State(items: [], total: 0, greeting: nil, names: []) }
    func transform(_ input: Input, state: State) -> [Action] { [] }
    func perform(_ action: Action, state: inout State) -> Effect<Action> { .none }
    func deriveValues(in state: inout State) {
        for index in state.items.indices { state.items[index].isEmpty = state.items[index].count == 0 }
        state.total = state.items.reduce(0) { $0 + $1.count }
        state.greeting = user.map { "Hello, \($0)" }
        state.names = state.items.map { "item \($0.count)" }
    }
}

@Suite struct StateRestorationTests {
    private func restore<F: Feature>(_ type: F.Type, _ state: JSONValue, savedAt version: Int? = nil) throws(FusionError) -> F.State {
        try StateRestoration.decode(F.self, state, savedAt: version)
    }

    private func refusal(_ body: () throws -> Void) -> String {
        do {
            try body()
        } catch let error as FusionError {
            #expect(error.status == .invalidState)
            return error.message
        } catch {
            Issue.record("unexpected \(error)")
        }
        Issue.record("expected a refusal")
        return ""
    }

    @Test func theVersionIsOneUnlessRaisedAndTheManifestSaysIt() {
        #expect(Plain.stateVersion == 1)
        #expect(FeatureDefinition(Plain.self).manifest["stateVersion"] == 1)
        #expect(FeatureDefinition(Note.self).manifest["stateVersion"] == 3)
    }

    @Test func aCurrentStateIsReadAsIs() throws {
        let state = try restore(Note.self, ["title": "a", "tags": ["x"]], savedAt: 3)
        #expect(state == Note.State(title: "a", tags: ["x"]))
        // No version given: the current one.
        #expect(try restore(Note.self, ["title": "b", "tags": []]).title == "b")
    }

    @Test func anOlderStateIsMigratedByTheFeature() throws {
        let state = try restore(Note.self, ["title": "kept"], savedAt: 2)
        #expect(state == Note.State(title: "kept", tags: []))
    }

    @Test func anOlderStateWithoutAMigrationIsRefusedNamingBothVersions() {
        let message = refusal { _ = try restore(Note.self, ["label": "old"], savedAt: 1) }
        #expect(
            message
                == "the state was saved at state version 1 of feature \"note\"; this library's feature \"note\" is at state version 3 and has no migration from version 1"
        )
    }

    @Test func aFailedMigrationSaysWhy() {
        let message = refusal { _ = try restore(Note.self, ["label": "old"], savedAt: 2) }
        #expect(message == "migrating the state of feature \"note\" from state version 2 to 3 failed: no title to carry over")
    }

    @Test func aNewerStateIsRefused() {
        let message = refusal { _ = try restore(Note.self, ["title": "t", "tags": []], savedAt: 4) }
        #expect(message.contains("saved at state version 4 of feature \"note\", newer than this library's version 3"))
    }

    @Test func aFieldTheStateDoesNotHaveIsRefusedNotDropped() {
        // An old save given as current: `label` would be skipped by synthesized Decodable.
        let top = refusal { _ = try restore(Note.self, ["title": "", "tags": [], "label": "old"]) }
        #expect(
            top.hasSuffix(
                "it has a field $.label that this version does not have; if it was saved by another version of feature \"note\", give its \"stateVersion\" (this library's is 3)"
            ))
        let nested = refusal { _ = try restore(Plain.self, ["count": 1, "items": [["name": "a"], ["name": "b", "done": true]]]) }
        #expect(nested.contains("it has a field $.items[1].done that this version does not have"))
    }

    @Test func nullForAnAbsentOptionalIsNotAnExtraField() throws {
        let state = try restore(Note.self, ["title": "t", "tags": [], "pinned": nil])
        #expect(state.pinned == nil)
    }

    @Test func derivedValuesAreRecomputedNotTrusted() throws {
        let feature = Tally(environment: Environment(user: User(subject: "alice")))
        let given: JSONValue = [
            "items": [["count": 0, "isEmpty": false], ["count": 2, "isEmpty": true]], "total": 99, "greeting": "Hello, mallory",
            "names": ["x"]
        ]
        let state = try StateRestoration.restore(feature, given, savedAt: nil)
        #expect(state.items == [Tally.Item(count: 0, isEmpty: true), Tally.Item(count: 2, isEmpty: false)])
        #expect(state.total == 2)
        #expect(state.greeting == "Hello, alice")
        #expect(state.names == ["item 0", "item 2"])
    }

    @Test func derivedFieldsMayBeLeftOutButOthersMayNot() throws {
        let feature = Tally(environment: Environment())
        // A state saved before the derived fields existed: same version, still loads.
        let state = try StateRestoration.restore(feature, ["items": [["count": 3]]], savedAt: 1)
        #expect(state == Tally.State(items: [Tally.Item(count: 3, isEmpty: false)], total: 3, greeting: nil, names: ["item 3"]))
        // A field the feature cannot derive is named; its version given, nothing else is wrong.
        let message = refusal { _ = try StateRestoration.restore(feature, ["items": [["isEmpty": true]]], savedAt: 1) }
        #expect(message == "the given state does not fit feature \"tally\" (state version 1): at $.items[0]: missing field \"count\"")
    }

    @Test func theHintAboutVersionsComesOnlyWhenNoVersionWasGiven() {
        // Version given: the field is what is wrong.
        let given = refusal { _ = try restore(Note.self, ["tags": []], savedAt: 3) }
        #expect(given == "the given state does not fit feature \"note\" (state version 3): missing field \"title\"")
        // No version given: another version may be meant.
        let unversioned = refusal { _ = try restore(Note.self, ["tags": []]) }
        #expect(unversioned.hasSuffix("give its \"stateVersion\" (this library's is 3)"))
    }

    @Test func theOptionNeedsAStateAndAWholeVersion() {
        #expect(throws: FusionError.self) { try InstanceOptions(json: ["stateVersion": 2]) }
        #expect(throws: FusionError.self) { try InstanceOptions(json: ["state": [:], "stateVersion": 0]) }
        #expect(throws: FusionError.self) { try InstanceOptions(json: ["state": [:], "stateVersion": "2"]) }
        #expect((try? InstanceOptions(json: ["state": [:], "stateVersion": 2]))?.stateVersion == 2)
    }
}
