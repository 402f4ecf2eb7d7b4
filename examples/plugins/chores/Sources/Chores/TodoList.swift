import FusionKit

/// A to-do list with filters. Its Input/State spec:
///
/// | input | state after |
/// | --- | --- |
/// | `draftChanged(text:)` | `draft` is the text; `canAdd` says whether it has something besides whitespace |
/// | `addTapped` | a new item, titled with the trimmed draft, not done, id `nextID`; `draft` is "" |
/// | `addTapped` with a blank draft | nothing changes |
/// | `toggleTapped(id:)` | that item is done if it was not, and not done if it was |
/// | `removeTapped(id:)` | that item is gone |
/// | `toggleAllTapped` | every item done; or, when all were done already, none done |
/// | `clearCompletedTapped` | the done items are gone |
/// | `filterChanged(filter:)` | `filter` is `all`, `active` or `completed`; `visibleItems` follows |
///
/// An input about an id that is not in the list, `toggleAllTapped` on an empty list and
/// `clearCompletedTapped` with nothing done change nothing. Ids count up from 1 and are
/// never reused, so a front end can key its rows by them; nothing here is random.
///
/// `visibleItems`, `activeCount`, `completedCount`, `canAdd`, `canClearCompleted` and
/// `allDone` are derived here, in ``derive(_:)``, after every action: a front end only
/// draws them.
public struct TodoList: Feature {
    /// The name hosts use: `fusion run libChores.so todo`.
    public static let name = "todo"
    /// One line for `fusion inspect` and the manifest.
    public static let summary = "A to-do list: add, toggle, remove, toggle all, clear completed; filter all, active or completed."

    /// Which items the list shows. Sent and drawn as its raw value: `"all"`, `"active"`, `"completed"`.
    @JSONCoded
    public enum Filter: String, JSONCoded, CaseIterable, Equatable, Sendable {
        /// Every item.
        case all
        /// The items not done yet.
        case active
        /// The items done.
        case completed
    }

    /// One thing to do.
    @JSONCoded
    public struct Item: JSONCoded, Equatable, Identifiable, Sendable {
        /// Unique in the list and never reused: 1 for the first item added, then 2, 3, …
        public var id: Int
        /// What to do: the draft it was added from, trimmed.
        public var title: String
        /// Whether it is done.
        public var isDone: Bool

        /// An item, not done unless said otherwise.
        public init(id: Int, title: String, isDone: Bool = false) {
            self.id = id
            self.title = title
            self.isDone = isDone
        }
    }

    /// What the person does.
    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        /// The text field for a new item changed to `text`.
        case draftChanged(text: String)
        /// The add button: adds the trimmed draft as a new item and clears the draft.
        /// Refused (nothing changes) when the draft is blank.
        case addTapped
        /// The checkbox of the item `id`: done becomes not done and the other way round.
        /// Ignored when no item has that id.
        case toggleTapped(id: Int)
        /// The delete button of the item `id`. Ignored when no item has that id.
        case removeTapped(id: Int)
        /// The "all" checkbox: marks every item done, or every item not done when all
        /// are done already. Ignored on an empty list.
        case toggleAllTapped
        /// Removes the items that are done. Ignored when none is done.
        case clearCompletedTapped
        /// Shows all items, only the active ones or only the completed ones.
        case filterChanged(filter: Filter)
    }

    /// What the logic does.
    public enum Action: Sendable {
        /// Keeps the text typed as the draft.
        case setDraft(String)
        /// Appends an item with this title and a fresh id, and clears the draft.
        case add(title: String)
        /// Flips whether the item is done.
        case toggle(id: Int)
        /// Removes the item.
        case remove(id: Int)
        /// Marks every item done (true) or not done (false).
        case setAllDone(Bool)
        /// Removes every item that is done.
        case clearCompleted
        /// Shows the items this filter lets through.
        case setFilter(Filter)
    }

    /// Everything the screen draws, derived values included.
    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable {
        /// Every item, in the order added.
        public var items: [Item]
        /// The text field for a new item, as typed.
        public var draft: String
        /// Which items `visibleItems` holds.
        public var filter: Filter
        /// The id the next item added gets.
        public var nextID: Int
        /// Derived: the items the filter lets through, in the order added.
        public var visibleItems: [Item] = []
        /// Derived: how many items are not done ("3 items left").
        public var activeCount = 0
        /// Derived: how many items are done.
        public var completedCount = 0
        /// Derived: whether the add button is enabled (the draft has something besides whitespace).
        public var canAdd = false
        /// Derived: whether "clear completed" is enabled (some item is done).
        public var canClearCompleted = false
        /// Derived: whether there are items and all of them are done (the "all" checkbox is checked).
        public var allDone = false

        /// A state with its derived fields computed from the rest. `nextID` defaults to
        /// one past the highest id in `items` (1 for an empty list).
        public init(items: [Item] = [], draft: String = "", filter: Filter = .all, nextID: Int? = nil) {
            self.items = items
            self.draft = draft
            self.filter = filter
            self.nextID = nextID ?? ((items.map(\.id).max() ?? 0) &+ 1)
            TodoList.derive(&self)
        }
    }

    /// Needs nothing from its environment: no time, no randomness, no host requests.
    public init(environment: Environment) {}

    /// An empty list showing all items, with nothing typed; the first item gets id 1.
    public var initialState: State { State() }

    /// Turns an input into actions; a refused or ignored input gives none.
    public func transform(_ input: Input, state: State) -> [Action] {
        // Decided from the items and the draft themselves, so that a state given at
        // creation with stale derived fields is still answered right.
        switch input {
        case .draftChanged(let text):
            return [.setDraft(text)]
        case .addTapped:
            let title = Self.trimmed(state.draft)
            guard !title.isEmpty, Self.freshID(state) != nil else { return [] }
            return [.add(title: title)]
        case .toggleTapped(let id):
            return state.items.contains { $0.id == id } ? [.toggle(id: id)] : []
        case .removeTapped(let id):
            return state.items.contains { $0.id == id } ? [.remove(id: id)] : []
        case .toggleAllTapped:
            guard !state.items.isEmpty else { return [] }
            return [.setAllDone(!state.items.allSatisfy(\.isDone))]
        case .clearCompletedTapped:
            return state.items.contains(where: \.isDone) ? [.clearCompleted] : []
        case .filterChanged(let filter):
            return filter == state.filter ? [] : [.setFilter(filter)]
        }
    }

    /// Applies one action, then recomputes the derived fields. No effects.
    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        defer { Self.derive(&state) }
        switch action {
        case .setDraft(let text):
            state.draft = text
        case .add(let title):
            guard let id = Self.freshID(state) else { break }
            state.items.append(Item(id: id, title: title))
            state.nextID = id + 1
            state.draft = ""
        case .toggle(let id):
            guard let index = state.items.firstIndex(where: { $0.id == id }) else { break }
            state.items[index].isDone.toggle()
        case .remove(let id):
            state.items.removeAll { $0.id == id }
        case .setAllDone(let isDone):
            for index in state.items.indices { state.items[index].isDone = isDone }
        case .clearCompleted:
            state.items.removeAll(where: \.isDone)
        case .setFilter(let filter):
            state.filter = filter
        }
        return .none
    }

    /// Recomputes the derived fields (`visibleItems`, `activeCount`, `completedCount`,
    /// `canAdd`, `canClearCompleted`, `allDone`) from the rest of the state.
    public static func derive(_ state: inout State) {
        switch state.filter {
        case .all: state.visibleItems = state.items
        case .active: state.visibleItems = state.items.filter { !$0.isDone }
        case .completed: state.visibleItems = state.items.filter(\.isDone)
        }
        state.completedCount = state.items.count { $0.isDone }
        state.activeCount = state.items.count - state.completedCount
        state.canAdd = !trimmed(state.draft).isEmpty
        state.canClearCompleted = state.completedCount > 0
        state.allDone = !state.items.isEmpty && state.activeCount == 0
    }

    /// The id for the next item: `nextID`, or past every id in the list when a state
    /// given at creation has a `nextID` that would collide. Nil when ids ran out.
    static func freshID(_ state: State) -> Int? {
        let highest = state.items.map(\.id).max() ?? 0
        let (afterHighest, overflow) = highest.addingReportingOverflow(1)
        guard !overflow else { return nil }
        let id = Swift.max(1, state.nextID, afterHighest)
        return id < Int.max ? id : nil
    }

    /// `text` without whitespace (spaces, tabs, newlines) at either end.
    static func trimmed(_ text: String) -> String {
        guard let start = text.firstIndex(where: { !$0.isWhitespace }),
            let last = text.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(text[start...last])
    }
}
