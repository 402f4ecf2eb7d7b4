import FusionKit

/// A tally counter: each tap adds the step, and the last taps can be taken back. Its
/// Input/State spec:
///
/// | input | state after |
/// | --- | --- |
/// | `tapped` | `count` up by `step`; the tap's step remembered in `undoSteps` (the last 10) |
/// | `stepChanged(step:)` with 1…100 | `step` is that value; later taps add it |
/// | `stepChanged(step:)` outside 1…100 | nothing changes |
/// | `undoTapped` | the last remembered tap taken back: `count` down by its step |
/// | `undoTapped` with no undo steps | nothing changes |
/// | `reset` | `count` is 0 and `undoSteps` empty; `step` stays |
///
/// `canUndo` is derived here, in ``derive(_:)``, after every action.
///
/// Its name is "counter" on purpose: the example library FusionExamples has a "counter"
/// too. A host that loads both tells them apart as "Chores/counter" and
/// "FusionExamples/counter".
public struct TallyCounter: Feature {
    /// The name hosts use: `fusion run libChores.so counter`, or `Chores/counter` beside
    /// another library that has a "counter".
    public static let name = "counter"
    /// One line for `fusion inspect` and the manifest.
    public static let summary = "A tally counter: tap to add the step (1…100), undo the last taps, reset."

    /// The steps `stepChanged(step:)` accepts.
    public static let steps = 1...100
    /// The state's shape is at version 2: Chores 1.0.0 (version 1) called `undoSteps`
    /// `history`, a word hosts now use for time travel (`fusion run`'s `:history`).
    public static let stateVersion = 2

    /// How many taps `undoSteps` keeps, and so how many `undoTapped` can take back.
    public static let undoLimit = 10

    /// What the person does.
    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        /// The big button: adds `step` to `count`.
        case tapped
        /// The step picker: later taps add `step`. Values outside 1…100 are ignored.
        case stepChanged(step: Int)
        /// Takes back the last tap still in `undoSteps`. Ignored when `undoSteps` is empty.
        case undoTapped
        /// Starts counting again from 0, forgetting the taps; the step stays.
        case reset
    }

    /// What the logic does.
    public enum Action: Sendable {
        /// Adds this step to the count and remembers the tap.
        case add(Int)
        /// Makes this the step of later taps.
        case setStep(Int)
        /// Takes back the last remembered tap.
        case undo
        /// Zeroes the count and forgets the taps.
        case reset
    }

    /// Everything the screen draws, derived values included.
    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable {
        /// The tally: the sum of the steps of the taps since the start or the last reset,
        /// less those undone.
        public var count: Int
        /// What a tap adds, 1…100.
        public var step: Int
        /// The step of each of the last taps, oldest first; at most `undoLimit`.
        public var undoSteps: [Int]
        /// Derived: whether `undoTapped` has a tap to take back (the undo button is enabled).
        public var canUndo = false

        /// A state with its derived field computed from the rest.
        public init(count: Int = 0, step: Int = 1, undoSteps: [Int] = []) {
            self.count = count
            self.step = step
            self.undoSteps = undoSteps
            TallyCounter.derive(&self)
        }
    }

    /// Needs nothing from its environment: no time, no randomness, no host requests.
    public init(environment: Environment) {}

    /// A state saved by Chores 1.0.0 (state version 1) restores with its undo steps:
    /// `history` is renamed `undoSteps`; the rest did not change.
    public static func migrateState(_ state: JSONValue, from version: Int) throws(StateMigrationError) -> JSONValue {
        guard version == 1, case .object(var members) = state else { throw NoStateMigration() }
        if let old = members.firstIndex(where: { $0.key == "history" }) { members[old].key = "undoSteps" }
        return .object(members)
    }

    /// A count of 0, a step of 1, nothing to undo.
    public var initialState: State { State() }

    /// Turns an input into actions; a refused or ignored input gives none.
    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .tapped:
            // A state given from outside may sit next to Int.max: stop there rather than trap.
            return state.count.addingReportingOverflow(state.step).overflow ? [] : [.add(state.step)]
        case .stepChanged(let step):
            return Self.steps.contains(step) && step != state.step ? [.setStep(step)] : []
        case .undoTapped:
            guard let last = state.undoSteps.last, !state.count.subtractingReportingOverflow(last).overflow else { return [] }
            return [.undo]
        case .reset:
            return [.reset]
        }
    }

    /// Applies one action, then recomputes the derived fields. No effects.
    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        defer { Self.derive(&state) }
        switch action {
        case .add(let step):
            state.count += step
            state.undoSteps.append(step)
            if state.undoSteps.count > Self.undoLimit { state.undoSteps.removeFirst(state.undoSteps.count - Self.undoLimit) }
        case .setStep(let step):
            state.step = step
        case .undo:
            guard let last = state.undoSteps.popLast() else { break }
            state.count -= last
        case .reset:
            state.count = 0
            state.undoSteps = []
        }
        return .none
    }

    /// Recomputes the derived field (`canUndo`) from the rest of the state.
    public static func derive(_ state: inout State) {
        state.canUndo = !state.undoSteps.isEmpty
    }
}
