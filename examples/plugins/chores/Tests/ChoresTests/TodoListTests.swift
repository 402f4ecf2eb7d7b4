import FusionKit
import Testing
@testable import Chores

/// The Input/State spec of the to-do list, input by input.
@Suite struct TodoListTests {
    private func list(_ titles: String...) -> Store<TodoList> {
        let store = Store<TodoList>()
        for title in titles {
            store.send(.draftChanged(text: title))
            store.send(.addTapped)
        }
        return store
    }

    @Test func startsEmpty() {
        let state = Store<TodoList>().state
        #expect(state.items.isEmpty && state.visibleItems.isEmpty)
        #expect(state.activeCount == 0 && state.completedCount == 0)
        #expect(!state.canAdd && !state.canClearCompleted && !state.allDone)
        #expect(state.filter == .all && state.nextID == 1)
    }

    @Test func addsTheTrimmedDraftAndClearsIt() {
        let store = Store<TodoList>()
        store.send(.draftChanged(text: "  milk "))
        #expect(store.state.canAdd)
        store.send(.addTapped)
        #expect(store.state.items == [TodoList.Item(id: 1, title: "milk")])
        #expect(store.state.draft == "" && !store.state.canAdd)
        #expect(store.state.activeCount == 1 && store.state.visibleItems.count == 1)
    }

    @Test func aBlankDraftIsNotAdded() {
        let store = Store<TodoList>()
        store.send(.draftChanged(text: "   "))
        let before = store.snapshot
        #expect(!store.send(.addTapped))
        #expect(store.state == before.state && store.version == before.version)
    }

    @Test func idsCountUpAndAreNeverReused() {
        let store = list("a", "b")
        store.send(.removeTapped(id: 2))
        store.send(.draftChanged(text: "c"))
        store.send(.addTapped)
        #expect(store.state.items.map(\.id) == [1, 3])
    }

    @Test func togglesAndCounts() {
        let store = list("a", "b", "c")
        store.send(.toggleTapped(id: 2))
        #expect(store.state.items[1].isDone)
        #expect(store.state.activeCount == 2 && store.state.completedCount == 1)
        #expect(store.state.canClearCompleted && !store.state.allDone)
        store.send(.toggleTapped(id: 2))
        #expect(!store.state.items[1].isDone && !store.state.canClearCompleted)
    }

    @Test func unknownIdsChangeNothing() {
        let store = list("a")
        let before = store.snapshot
        #expect(!store.send(.toggleTapped(id: 42)))
        #expect(!store.send(.removeTapped(id: 42)))
        #expect(store.version == before.version)
    }

    @Test func removes() {
        let store = list("a", "b")
        store.send(.removeTapped(id: 1))
        #expect(store.state.items.map(\.title) == ["b"])
        #expect(store.state.activeCount == 1)
    }

    @Test func toggleAllMarksAllThenNone() {
        let store = list("a", "b")
        store.send(.toggleTapped(id: 1))
        store.send(.toggleAllTapped)
        #expect(store.state.items.allSatisfy(\.isDone) && store.state.allDone)
        store.send(.toggleAllTapped)
        #expect(!store.state.items.contains(where: \.isDone) && !store.state.allDone)
        #expect(!Store<TodoList>().send(.toggleAllTapped))
    }

    @Test func clearCompletedRemovesTheDoneOnes() {
        let store = list("a", "b", "c")
        store.send(.toggleTapped(id: 1))
        store.send(.toggleTapped(id: 3))
        store.send(.clearCompletedTapped)
        #expect(store.state.items.map(\.title) == ["b"])
        #expect(!store.state.canClearCompleted)
        #expect(!store.send(.clearCompletedTapped))
    }

    @Test func filtersShowActiveOrCompleted() {
        let store = list("a", "b", "c")
        store.send(.toggleTapped(id: 2))
        store.send(.filterChanged(filter: .active))
        #expect(store.state.visibleItems.map(\.title) == ["a", "c"])
        store.send(.filterChanged(filter: .completed))
        #expect(store.state.visibleItems.map(\.title) == ["b"])
        // The filtered view follows changes made under it.
        store.send(.toggleTapped(id: 1))
        #expect(store.state.visibleItems.map(\.title) == ["a", "b"])
        store.send(.filterChanged(filter: .all))
        #expect(store.state.visibleItems.count == 3)
        #expect(!store.send(.filterChanged(filter: .all)))
    }

    @Test func aGivenStateGetsItsDerivedFields() {
        let state = TodoList.State(items: [.init(id: 4, title: "x", isDone: true)])
        #expect(state.nextID == 5 && state.allDone && state.completedCount == 1)
    }
}
