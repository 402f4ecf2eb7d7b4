import Testing

@testable import FusionKit

/// A feature whose state shape changed twice: version 1 had `label`, version 2 renamed
/// it `title`, version 3 added `tags`. It migrates from 2 only, as an author might after
/// dropping support for the oldest saves.
private struct Note: Feature {
    static let name = "note"
    static let stateVersion = 3

    enum Input: Decodable, Sendable { case touch }
    enum Action: Sendable { case touch }
    struct State: Codable, Equatable, Sendable {
        var title: String
        var tags: [String]
        var pinned: String?
    }

    init(environment: Environment) {}
    var initialState: State { State(title: "", tags: []) }
    func transform(_ input: Input, state: State) -> [Action] { [.touch] }
    func perform(_ action: Action, state: inout State) -> Effect<Action> { .none }

    struct BadSave: Error, CustomStringConvertible { var description: String { "no title to carry over" } }

    static func migrateState(_ state: JSONValue, from version: Int) throws -> JSONValue {
        guard version == 2 else { throw NoStateMigration() }
        guard case .object(var members) = state, members.contains(where: { $0.key == "title" }) else { throw BadSave() }
        members.append(JSONMember("tags", []))
        return .object(members)
    }
}

/// A feature that never raised its version.
private struct Plain: Feature {
    static let name = "plain"
    enum Input: Decodable, Sendable { case touch }
    enum Action: Sendable { case touch }
    struct State: Codable, Equatable, Sendable {
        var count: Int
        var items: [Item]
        struct Item: Codable, Equatable, Sendable { var name: String }
    }
    init(environment: Environment) {}
    var initialState: State { State(count: 0, items: []) }
    func transform(_ input: Input, state: State) -> [Action] { [] }
    func perform(_ action: Action, state: inout State) -> Effect<Action> { .none }
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
                "it has a field $.label that this version does not have; a state saved by another version of the feature needs its \"stateVersion\""
            ))
        let nested = refusal { _ = try restore(Plain.self, ["count": 1, "items": [["name": "a"], ["name": "b", "done": true]]]) }
        #expect(nested.contains("it has a field $.items[1].done that this version does not have"))
    }

    @Test func nullForAnAbsentOptionalIsNotAnExtraField() throws {
        let state = try restore(Note.self, ["title": "t", "tags": [], "pinned": nil])
        #expect(state.pinned == nil)
    }

    @Test func theOptionNeedsAStateAndAWholeVersion() {
        #expect(throws: FusionError.self) { try InstanceOptions(json: ["stateVersion": 2]) }
        #expect(throws: FusionError.self) { try InstanceOptions(json: ["state": [:], "stateVersion": 0]) }
        #expect(throws: FusionError.self) { try InstanceOptions(json: ["state": [:], "stateVersion": "2"]) }
        #expect((try? InstanceOptions(json: ["state": [:], "stateVersion": 2]))?.stateVersion == 2)
    }
}
