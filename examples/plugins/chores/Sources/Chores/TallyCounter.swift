import FusionKit

/// A tally counter with a step and undo. Its name is "counter" on purpose: the example
/// library has a "counter" too, and hosts that load both tell them apart as
/// "Chores/counter" and "FusionExamples/counter".
///
/// | input | state after |
/// | --- | --- |
/// | `tapped` | `count` up by `step`; the tap remembered (the last 10) |
/// | `stepChanged(step:)` | `step` is 1…100 (other values change nothing) |
/// | `undoTapped` | the last remembered tap taken back (nothing when there is none) |
/// | `reset` | back to the initial state |
public struct TallyCounter: Feature {
    public static let name = "counter"
    public static let summary = "A tally counter with a step and undo (a \"counter\" of another library)."
    /// How many taps `undoTapped` can take back.
    public static let historyLimit = 10

    /// What the person does.
    public enum Input: Decodable, Sendable {
        case tapped
        case stepChanged(step: Int)
        case undoTapped
        case reset
    }

    /// What the logic does.
    public enum Action: Sendable {
        case add
        case setStep(Int)
        case undo
        case reset
    }

    /// The screen.
    public struct State: Codable, Equatable, Sendable {
        public var count = 0
        /// What a tap adds.
        public var step = 1
        /// The steps of the last taps, oldest first (at most `historyLimit`).
        public var history: [Int] = []
        /// Derived: whether a tap can be taken back.
        public var canUndo = false

        public init() {}
    }

    public init(environment: Environment) {}

    public var initialState: State { State() }

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .tapped: return [.add]
        case .stepChanged(let step): return (1...100).contains(step) && step != state.step ? [.setStep(step)] : []
        case .undoTapped: return state.canUndo ? [.undo] : []
        case .reset: return state == State() ? [] : [.reset]
        }
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .add:
            state.count += state.step
            state.history.append(state.step)
            if state.history.count > Self.historyLimit { state.history.removeFirst() }
        case .setStep(let step):
            state.step = step
        case .undo:
            state.count -= state.history.removeLast()
        case .reset:
            state = State()
        }
        state.canUndo = !state.history.isEmpty
        return .none
    }
}
