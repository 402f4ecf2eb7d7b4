import FusionKit
import Testing

@testable import Chores

/// The library as hosts see it through the C ABI: its registration line and manifest.
@Suite struct LibraryTests {
    @Test func exportsTodoAndItsOwnCounter() {
        let library = fusionLibrary()
        #expect(library.name == "Chores" && library.version == "1.1.0")
        #expect(library.features.map(\.name) == ["todo", "counter"])
        // The manifest lists cases with fields first (the Swift runtime's order), so compare as sets.
        #expect(
            library.feature(named: "todo").map { Set($0.inputs.caseNames) } == [
                "draftChanged", "addTapped", "toggleTapped", "removeTapped", "toggleAllTapped", "clearCompletedTapped", "filterChanged"
            ])
        #expect(library.feature(named: "counter").map { Set($0.inputs.caseNames) } == ["tapped", "stepChanged", "undoTapped", "reset"])
        #expect(library.features.allSatisfy { !$0.summary.isEmpty })
    }

    func feature(_ name: String) -> JSONValue? {
        guard case .array(let features)? = fusionLibrary().manifest(abiVersion: 1)["features"] else { return nil }
        return features.first { $0["name"] == .string(name) }
    }

    @Test func theManifestDescribesTheFilterAsItsThreeNames() throws {
        let todo = try #require(feature("todo"))
        guard case .array(let inputs)? = todo["inputs"] else { Issue.record("no inputs"); return }
        let filterChanged = try #require(inputs.first { $0["name"] == "filterChanged" })
        #expect(
            filterChanged["fields"] == [
                [
                    "name": "filter", "type": "TodoList.Filter", "required": true,
                    "schema": ["title": "TodoList.Filter", "type": "string", "enum": ["all", "active", "completed"]]
                ]
            ])
        let toggle = try #require(inputs.first { $0["name"] == "toggleTapped" })
        #expect(toggle["fields"] == [["name": "id", "type": "integer", "required": true, "schema": ["type": "integer"]]])
    }

    @Test func theManifestListsEveryStateField() throws {
        let todo = try #require(feature("todo"))
        #expect(
            todo["stateSchema"]?["required"] == [
                "items", "draft", "filter", "nextID", "visibleItems", "activeCount", "completedCount", "canAdd",
                "canClearCompleted", "allDone"
            ])
        let counter = try #require(feature("counter"))
        #expect(counter["stateSchema"]?["required"] == ["count", "step", "undoSteps", "canUndo"])
    }
}
