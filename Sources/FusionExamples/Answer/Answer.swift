import FusionKit

// Each example states Feature's requirements the same way (name, summary, Input,
// Action, State, init, initialState, transform, perform): the shape repeats by design.
/// The answer form of seed 002 (FeelTalk, Input–Output): the view hands over what the
/// person typed and binds what comes back; whether "submit" is enabled is decided
/// here, never by the view.
///
/// | Input                       | State                                                     |
/// |-----------------------------|-----------------------------------------------------------|
/// | answerChanged(text:)        | answer = text; isSubmitEnabled = not blank and not busy   |
/// | submitTapped (when enabled) | isSubmitting = true; after `submitDelay`: submitted = the trimmed answer, answer = "" |
/// | resultDismissed             | submitted = nil                                           |
public struct Answer: Feature {
    public static let name = "answer"
    public static let summary = "An answer form: isSubmitEnabled derived from the text; submitting, then a result (seed 002)."

    /// How long sending an answer takes, on the environment's clock.
    public static let submitDelay: Duration = .milliseconds(500)

    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        case answerChanged(text: String)
        case submitTapped
        case resultDismissed
    }

    public enum Action: Sendable {
        case setAnswer(String)
        case submit
        case submitCompleted(String)
        case dismissResult
    }

    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable, DerivedFields {
        public var answer = ""
        /// Derived: true when the answer has something besides whitespace and nothing is being sent.
        public var isSubmitEnabled = false
        public var isSubmitting = false
        /// The answer that was sent, to confirm to the person; nil before that or once dismissed.
        public var submitted: String?

        public init() {}

        public static let derivedFields: Set<String> = ["isSubmitEnabled"]
    }

    private let clock: any FusionClock

    public init(environment: Environment) {
        clock = environment.clock
    }

    public var initialState: State { State() }

    public func deriveValues(in state: inout State) { state.isSubmitEnabled = Self.canSubmit(state) }

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .answerChanged(let text): return [.setAnswer(text)]
        case .submitTapped: return state.isSubmitEnabled ? [.submit] : []
        case .resultDismissed: return [.dismissResult]
        }
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        defer { state.isSubmitEnabled = Self.canSubmit(state) }
        switch action {
        case .setAnswer(let text):
            state.answer = text
            return .none
        case .submit:
            state.isSubmitting = true
            let answer = Self.trimmed(state.answer)
            return .after(Self.submitDelay, on: clock, id: "answer.submit", send: .submitCompleted(answer))
        case .submitCompleted(let answer):
            state.isSubmitting = false
            state.submitted = answer
            state.answer = ""
            return .none
        case .dismissResult:
            state.submitted = nil
            return .none
        }
    }

    static func canSubmit(_ state: State) -> Bool {
        !state.isSubmitting && !state.answer.allSatisfy({ $0.isWhitespace })
    }

    static func trimmed(_ text: String) -> String {
        let start = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
        let end = text.lastIndex { !$0.isWhitespace }.map(text.index(after:)) ?? start
        return start < end ? String(text[start..<end]) : ""
    }
}
