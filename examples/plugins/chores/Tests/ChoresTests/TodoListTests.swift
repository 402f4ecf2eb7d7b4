import FusionKit
import Testing

@testable import Chores

/// The Input/State spec of the to-do list, input by input, through `Store`.
@Suite struct TodoListTests {
    typealias Item = TodoList.Item

    /// A list with one item per title, added as a person would: type, then add.
    func list(_ titles: String...) -> Store<TodoList> {
        let store = Store<TodoList>()
        for title in titles {
            store.send(.draftChanged(text: title))
            store.send(.addTapped)
        }
        return store
    }

    /// Sends `input` and checks that it was refused: no change, no new version.
    func expectRefused(_ store: Store<TodoList>, _ input: TodoList.Input, sourceLocation: SourceLocation = #_sourceLocation) {
        let before = store.snapshot
        #expect(!store.send(input), "\(input) changed the state", sourceLocation: sourceLocation)
        #expect(store.state == before.state, sourceLocation: sourceLocation)
        #expect(store.version == before.version, sourceLocation: sourceLocation)
    }

    // MARK: The initial state

    @Test func startsEmptyWithNothingToAddOrClear() {
        let state = Store<TodoList>().state
        #expect(state == TodoList.State(items: [], draft: "", filter: .all, nextID: 1))
        #expect(state.visibleItems.isEmpty && state.activeCount == 0 && state.completedCount == 0)
        #expect(!state.canAdd && !state.canClearCompleted && !state.allDone)
    }

    @Test func itsJSONHasEveryFieldDerivedOnesIncluded() throws {
        let store = list("milk")
        store.send(.toggleTapped(id: 1))
        let json = String(decoding: try store.encodedState().bytes, as: UTF8.self)
        #expect(
            json == #"{"items":[{"id":1,"title":"milk","isDone":true}],"draft":"","filter":"all","nextID":2,"#
                + #""visibleItems":[{"id":1,"title":"milk","isDone":true}],"activeCount":0,"completedCount":1,"#
                + #""canAdd":false,"canClearCompleted":true,"allDone":true}"#)
    }

    // MARK: draftChanged, addTapped

    @Test(arguments: [("", false), (" ", false), ("  \n\t", false), ("milk", true), ("  milk \n", true), ("a b", true)])
    func draftChangedKeepsTheTextAsTypedAndDerivesCanAdd(text: String, canAdd: Bool) {
        let store = Store<TodoList>()
        store.send(.draftChanged(text: text))
        #expect(store.state.draft == text)
        #expect(store.state.canAdd == canAdd)
        #expect(store.state.items.isEmpty)
    }

    @Test func addTappedAddsTheTrimmedDraftAsANewItemAndClearsTheDraft() {
        let store = Store<TodoList>()
        store.send(.draftChanged(text: "  buy milk \n"))
        #expect(store.send(.addTapped))
        #expect(store.state.items == [Item(id: 1, title: "buy milk", isDone: false)])
        #expect(store.state.draft == "")
        #expect(!store.state.canAdd)
        #expect(store.state.nextID == 2)
        #expect(store.state.visibleItems == store.state.items)
        #expect(store.state.activeCount == 1 && store.state.completedCount == 0)
        #expect(!store.state.allDone && !store.state.canClearCompleted)
    }

    @Test(arguments: ["", " ", "\n\t  "])
    func addTappedWithABlankDraftIsRefused(draft: String) {
        let store = list("milk")
        store.send(.draftChanged(text: draft))
        expectRefused(store, .addTapped)
        #expect(store.state.items.map(\.title) == ["milk"])
        #expect(store.state.draft == draft)  // kept as typed: nothing was added
    }

    @Test func newItemsGoLastAndAreNotDone() {
        let store = list("a", "b")
        store.send(.toggleTapped(id: 1))
        store.send(.draftChanged(text: "c"))
        store.send(.addTapped)
        #expect(store.state.items == [Item(id: 1, title: "a", isDone: true), Item(id: 2, title: "b"), Item(id: 3, title: "c")])
    }

    @Test func idsCountUpFromOneAndAreNeverReused() {
        let store = list("a", "b", "c")
        #expect(store.state.items.map(\.id) == [1, 2, 3])
        store.send(.removeTapped(id: 3))
        store.send(.removeTapped(id: 2))
        store.send(.draftChanged(text: "d"))
        store.send(.addTapped)
        #expect(store.state.items.map(\.id) == [1, 4])
        #expect(store.state.nextID == 5)
    }

    @Test func theSameInputsGiveTheSameIDs() {
        #expect(list("a", "b", "c").state == list("a", "b", "c").state)
    }

    @Test func aGivenStateWhoseNextIDWouldCollideStillGetsFreshIDs() {
        let store = Store<TodoList>(state: TodoList.State(items: [Item(id: 7, title: "old")], draft: "new", nextID: 2))
        store.send(.addTapped)
        #expect(store.state.items.map(\.id) == [7, 8])
        #expect(store.state.nextID == 9)
    }

    @Test func whenIDsRunOutAddTappedIsRefused() {
        let store = Store<TodoList>(state: TodoList.State(items: [Item(id: .max, title: "last")], draft: "one more"))
        expectRefused(store, .addTapped)
    }

    // MARK: toggleTapped, removeTapped

    @Test func toggleTappedMarksAnItemDoneThenNotDone() {
        let store = list("a", "b", "c")
        store.send(.toggleTapped(id: 2))
        #expect(store.state.items.map(\.isDone) == [false, true, false])
        #expect(store.state.activeCount == 2 && store.state.completedCount == 1)
        #expect(store.state.canClearCompleted && !store.state.allDone)
        store.send(.toggleTapped(id: 2))
        #expect(store.state.items.map(\.isDone) == [false, false, false])
        #expect(store.state.activeCount == 3 && store.state.completedCount == 0)
        #expect(!store.state.canClearCompleted)
    }

    @Test func removeTappedRemovesThatItemOnly() {
        let store = list("a", "b", "c")
        store.send(.toggleTapped(id: 1))
        store.send(.removeTapped(id: 1))
        #expect(store.state.items.map(\.title) == ["b", "c"])
        #expect(store.state.completedCount == 0 && store.state.activeCount == 2)
        #expect(!store.state.canClearCompleted)
        store.send(.removeTapped(id: 3))
        #expect(store.state.items.map(\.title) == ["b"])
        #expect(store.state.visibleItems.map(\.title) == ["b"])
    }

    @Test(arguments: [0, -1, 4, 99, Int.max, Int.min])
    func inputsAboutAnIDNotInTheListAreRefused(id: Int) {
        let store = list("a", "b", "c")
        store.send(.removeTapped(id: 2))
        expectRefused(store, .toggleTapped(id: id))
        expectRefused(store, .removeTapped(id: id))
        expectRefused(store, .toggleTapped(id: 2))  // removed already
        expectRefused(store, .removeTapped(id: 2))
    }

    // MARK: toggleAllTapped

    @Test func toggleAllTappedMarksEveryItemDoneWhenSomeAreNot() {
        let store = list("a", "b", "c")
        store.send(.toggleTapped(id: 2))
        store.send(.toggleAllTapped)
        #expect(store.state.items.allSatisfy { $0.isDone })
        #expect(store.state.allDone)
        #expect(store.state.activeCount == 0 && store.state.completedCount == 3)
    }

    @Test func toggleAllTappedMarksNoneDoneWhenAllAre() {
        let store = list("a", "b")
        store.send(.toggleAllTapped)
        store.send(.toggleAllTapped)
        #expect(!store.state.items.contains { $0.isDone })
        #expect(!store.state.allDone)
        #expect(store.state.activeCount == 2 && store.state.completedCount == 0)
    }

    @Test func toggleAllTappedOnAnEmptyListIsRefused() {
        expectRefused(Store<TodoList>(), .toggleAllTapped)
        let emptied = list("a")
        emptied.send(.removeTapped(id: 1))
        expectRefused(emptied, .toggleAllTapped)
    }

    // MARK: clearCompletedTapped

    @Test func clearCompletedTappedRemovesTheDoneItems() {
        let store = list("a", "b", "c", "d")
        store.send(.toggleTapped(id: 1))
        store.send(.toggleTapped(id: 3))
        #expect(store.state.canClearCompleted)
        store.send(.clearCompletedTapped)
        #expect(store.state.items.map(\.title) == ["b", "d"])
        #expect(store.state.completedCount == 0 && store.state.activeCount == 2)
        #expect(!store.state.canClearCompleted)
    }

    @Test func clearCompletedTappedWithNothingDoneIsRefused() {
        expectRefused(Store<TodoList>(), .clearCompletedTapped)
        expectRefused(list("a", "b"), .clearCompletedTapped)
    }

    @Test func clearingEverythingLeavesAnEmptyListNotAllDone() {
        let store = list("a", "b")
        store.send(.toggleAllTapped)
        #expect(store.state.allDone)
        store.send(.clearCompletedTapped)
        #expect(store.state.items.isEmpty)
        #expect(!store.state.allDone && !store.state.canClearCompleted)
        #expect(store.state.nextID == 3)
    }

    // MARK: filterChanged

    @Test(arguments: [
        (TodoList.Filter.all, ["a", "b", "c"]),
        (.active, ["a", "c"]),
        (.completed, ["b"])
    ])
    func filterChangedChoosesTheVisibleItems(filter: TodoList.Filter, visible: [String]) {
        let store = list("a", "b", "c")
        store.send(.toggleTapped(id: 2))
        store.send(.filterChanged(filter: .completed))
        store.send(.filterChanged(filter: filter))
        #expect(store.state.filter == filter)
        #expect(store.state.visibleItems.map(\.title) == visible)
        // Counts are of the whole list, whatever is shown.
        #expect(store.state.activeCount == 2 && store.state.completedCount == 1)
    }

    @Test func visibleItemsFollowChangesMadeUnderAFilter() {
        let store = list("a", "b")
        store.send(.filterChanged(filter: .active))
        store.send(.toggleTapped(id: 1))
        #expect(store.state.visibleItems.map(\.title) == ["b"])
        store.send(.draftChanged(text: "c"))
        store.send(.addTapped)
        #expect(store.state.visibleItems.map(\.title) == ["b", "c"])
        store.send(.filterChanged(filter: .completed))
        #expect(store.state.visibleItems.map(\.title) == ["a"])
        store.send(.clearCompletedTapped)
        #expect(store.state.visibleItems.isEmpty)
        store.send(.toggleAllTapped)
        #expect(store.state.visibleItems.map(\.title) == ["b", "c"])
    }

    @Test func choosingTheFilterAlreadyShownIsRefused() {
        let store = list("a")
        expectRefused(store, .filterChanged(filter: .all))
        store.send(.filterChanged(filter: .active))
        expectRefused(store, .filterChanged(filter: .active))
    }

    // MARK: Derived fields

    @Test func aStateMadeInSwiftHasItsDerivedFields() {
        let state = TodoList.State(
            items: [Item(id: 4, title: "x", isDone: true), Item(id: 2, title: "y")], draft: " z ", filter: .completed)
        #expect(state.nextID == 5)
        #expect(state.visibleItems.map(\.id) == [4])
        #expect(state.activeCount == 1 && state.completedCount == 1)
        #expect(state.canAdd && state.canClearCompleted && !state.allDone)
    }

    /// Every derived field, recomputed by hand from the items, draft and filter.
    func expectDerivedFieldsMatch(_ state: TodoList.State, sourceLocation: SourceLocation = #_sourceLocation) {
        let done = state.items.filter(\.isDone)
        let active = state.items.filter { !$0.isDone }
        let visible =
            switch state.filter {
            case .all: state.items
            case .active: active
            case .completed: done
            }
        #expect(state.visibleItems == visible, sourceLocation: sourceLocation)
        #expect(state.activeCount == active.count, sourceLocation: sourceLocation)
        #expect(state.completedCount == done.count, sourceLocation: sourceLocation)
        #expect(state.canAdd == state.draft.contains { !$0.isWhitespace }, sourceLocation: sourceLocation)
        #expect(state.canClearCompleted == !done.isEmpty, sourceLocation: sourceLocation)
        #expect(state.allDone == (!state.items.isEmpty && active.isEmpty), sourceLocation: sourceLocation)
        #expect(Set(state.items.map(\.id)).count == state.items.count, sourceLocation: sourceLocation)
        #expect(state.items.allSatisfy { $0.id < state.nextID }, sourceLocation: sourceLocation)
    }

    @Test func derivedFieldsMatchTheItemsAfterEveryInput() {
        let script: [TodoList.Input] = [
            .addTapped, .toggleAllTapped, .clearCompletedTapped, .draftChanged(text: " one "), .addTapped,
            .draftChanged(text: "two"), .filterChanged(filter: .active), .addTapped, .draftChanged(text: "three"),
            .addTapped, .toggleTapped(id: 2), .filterChanged(filter: .completed), .toggleAllTapped, .toggleAllTapped,
            .toggleTapped(id: 1), .toggleTapped(id: 3), .filterChanged(filter: .all), .draftChanged(text: "  "),
            .addTapped, .removeTapped(id: 1), .clearCompletedTapped, .toggleAllTapped, .removeTapped(id: 2),
            .removeTapped(id: 3), .draftChanged(text: "four"), .addTapped, .filterChanged(filter: .completed)
        ]
        let store = Store<TodoList>()
        expectDerivedFieldsMatch(store.state)
        for input in script {
            store.send(input)
            expectDerivedFieldsMatch(store.state)
        }
        #expect(store.state.items == [Item(id: 4, title: "four")])
    }

    // MARK: Through JSON, as a front end sends it

    @Test func filterIsSentByName() throws {
        let todo = try #require(fusionLibrary().feature(named: "todo")).makeInstance()
        defer { todo.close() }
        try send(todo, #"{"draftChanged":{"text":"milk"}}"#)
        try send(todo, #""addTapped""#)
        try send(todo, #"{"filterChanged":{"filter":"completed"}}"#)
        let state = try JSONParser.parse(try todo.stateJSON().bytes)
        #expect(state["filter"] == "completed")
        #expect(state["visibleItems"] == [])
        #expect(state["activeCount"] == 1)
    }

    @Test func aFilterOfAnotherNameIsRefusedNamingTheFilters() throws {
        let todo = try #require(fusionLibrary().feature(named: "todo")).makeInstance()
        defer { todo.close() }
        let version = todo.version
        let error = #expect(throws: FusionError.self) { try send(todo, #"{"filterChanged":{"filter":"done"}}"#) }
        #expect(error?.message.contains(#""all", "active", "completed""#) == true, "\(String(describing: error))")
        #expect(todo.version == version)
    }

    /// Sends the input's JSON, as the C ABI's fk_send does.
    func send(_ instance: any FeatureInstance, _ json: String) throws(FusionError) {
        var failure: FusionError?
        Array(json.utf8).withUnsafeBytes { bytes in
            do throws(FusionError) { try instance.send(json: bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
