import FusionKit

// Each example states Feature's requirements the same way (name, summary, Input,
// Action, State, init, initialState, transform, perform): the shape repeats by design.
/// The Home screen of seed 001 (RIBs + SwiftUI): the view only renders `title` and
/// `desc` and forwards its events; the logic lives here, behind the ABI, where the
/// seed's Interactor put it.
///
/// | Input       | State                                                    |
/// |-------------|----------------------------------------------------------|
/// | (created)   | title "Hello", desc "World"                               |
/// | viewDidLoad | title "ViewDidLoad Action", desc "Number N" (the first only) |
/// | tap1        | title "Tap1 Action", desc "Tap1 Number N"                 |
/// | tap2        | title "Tap2 Action", desc "Tap2 Number N"                 |
///
/// N is drawn from 0...5 with the instance's random source, so a test (or a front
/// end, with the creation option `"seed"`) can pin it.
///
/// A front end sends `viewDidLoad` every time its view loads, and the feature decides
/// what that means: a view loads once per instance, so a page reloaded onto the same
/// instance (a rejoined web session) changes nothing and draws no new number.
public struct Home: Feature {
    public static let name = "home"
    public static let summary = "Title and description set by viewDidLoad, tap1, tap2 with a random number (seed 001)."

    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        case viewDidLoad
        case tap1
        case tap2
    }

    public enum Action: Sendable {
        case show(title: String, descriptionPrefix: String)
        case viewLoaded
    }

    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable {
        public var title: String
        public var desc: String
        /// Whether a view has loaded for this instance (the first `viewDidLoad` was heard).
        public var isViewLoaded: Bool

        public init(title: String = "Hello", desc: String = "World", isViewLoaded: Bool = false) {
            self.title = title
            self.desc = desc
            self.isViewLoaded = isViewLoaded
        }
    }

    private let random: RandomSource

    public init(environment: Environment) {
        random = environment.random
    }

    public var initialState: State { State() }

    /// Only the first `viewDidLoad` shows its title, and it marks the view loaded: a given
    /// state with that title and `isViewLoaded` false would show a second one.
    public func deriveValues(in state: inout State) {
        if state.title == Self.viewDidLoadTitle { state.isViewLoaded = true }
    }

    static let viewDidLoadTitle = "ViewDidLoad Action"

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .viewDidLoad:
            return state.isViewLoaded ? [] : [.viewLoaded, .show(title: Self.viewDidLoadTitle, descriptionPrefix: "Number")]
        case .tap1: return [.show(title: "Tap1 Action", descriptionPrefix: "Tap1 Number")]
        case .tap2: return [.show(title: "Tap2 Action", descriptionPrefix: "Tap2 Number")]
        }
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .show(let title, let prefix):
            state.title = title
            state.desc = "\(prefix) \(random.int(in: 0...5))"
        case .viewLoaded:
            state.isViewLoaded = true
        }
        return .none
    }
}
