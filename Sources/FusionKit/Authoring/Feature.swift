/// A screen's logic, written once: `Input → transform → [Action] → perform → State`.
///
/// - `Input` is what the person does, named as they do it, decoded from JSON. An enum
///   whose synthesized `Decodable` reads `{"networkTapped":{"id":"…"}}`; cases without
///   payload may also be sent as a bare string, `"increase"`.
/// - `Action` is what the logic does, including results of effects (`…Complete`).
/// - `State` is everything a front end needs to draw the screen, derived values
///   included. Only actions change it, inside `perform`.
///
/// A feature is a value: what it needs from the outside world (time, randomness,
/// work only the host can do) comes in through its `Environment`, so tests can pin it.
public protocol Feature: Sendable {
    associatedtype Input: Decodable & Sendable
    associatedtype Action: Sendable
    associatedtype State: Codable & Equatable & Sendable

    /// The name front ends create it by, e.g. `"counter"`.
    static var name: String { get }
    /// One line for `fusion inspect` and the manifest.
    static var summary: String { get }

    init(environment: Environment)

    /// The state a new instance starts in when no state is given.
    var initialState: State { get }

    /// Turns what the person did into what the logic does. It reads the state but
    /// cannot change it.
    func transform(_ input: Input, state: State) -> [Action]

    /// Applies one action: changes the state and returns the effects to run.
    func perform(_ action: Action, state: inout State) -> Effect<Action>

    /// FusionKit's own; features do not implement it. The default below is compiled in
    /// the module that declares the conformance, where `Self` is a concrete type, so a
    /// library's `[Counter.self, …]` list yields instances whose hot path is
    /// specialized for each feature (see `JSONStore`).
    static func _fusionDefinition() -> FeatureDefinition
}

extension Feature {
    /// No summary unless the feature gives one.
    public static var summary: String { "" }

    /// The default every feature uses: compiled in the feature's own module, so the
    /// runtime's code is specialized for it. Not for authors to implement.
    @inlinable
    public static func _fusionDefinition() -> FeatureDefinition { FeatureDefinition(Self.self) }
}
