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
/// | viewDidLoad | title "ViewDidLoad Action", desc "Number N"               |
/// | tap1        | title "Tap1 Action", desc "Tap1 Number N"                 |
/// | tap2        | title "Tap2 Action", desc "Tap2 Number N"                 |
///
/// N is drawn from 0...5 with the instance's random source, so a test (or a front
/// end, with the creation option `"seed"`) can pin it.
public struct Home: Feature {
    public static let name = "home"
    public static let summary = "Title and description set by viewDidLoad, tap1, tap2 with a random number (seed 001)."

    public enum Input: Decodable, Sendable {
        case viewDidLoad
        case tap1
        case tap2
    }

    public enum Action: Sendable {
        case show(title: String, descriptionPrefix: String)
    }

    public struct State: Codable, Equatable, Sendable {
        public var title: String
        public var desc: String

        public init(title: String = "Hello", desc: String = "World") {
            self.title = title
            self.desc = desc
        }
    }

    private let random: RandomSource

    public init(environment: Environment) {
        random = environment.random
    }

    public var initialState: State { State() }

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .viewDidLoad: return [.show(title: "ViewDidLoad Action", descriptionPrefix: "Number")]
        case .tap1: return [.show(title: "Tap1 Action", descriptionPrefix: "Tap1 Number")]
        case .tap2: return [.show(title: "Tap2 Action", descriptionPrefix: "Tap2 Number")]
        }
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .show(let title, let prefix):
            state.title = title
            state.desc = "\(prefix) \(random.int(in: 0...5))"
        }
        return .none
    }
}
