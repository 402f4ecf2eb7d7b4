/// A screen's logic, written once: `Input → transform → [Action] → perform → State`.
///
/// - `Input` is what the person does, named as they do it, decoded from JSON. An enum
///   marked `@JSONCoded`, which reads `{"networkTapped":{"id":"…"}}`; cases without
///   payload may also be sent as a bare string, `"increase"`.
/// - `Action` is what the logic does, including results of effects (`…Complete`).
/// - `State` is everything a front end needs to draw the screen, derived values
///   included. Only actions change it, inside `perform`.
///
/// A feature is a value: what it needs from the outside world (time, randomness,
/// work only the host can do) comes in through its `Environment`, so tests can pin it.
///
/// `Input` and `State`, and the types inside them, are marked `@JSONCoded` and state the
/// conformance: `@JSONCoded public struct State: JSONCoded, Equatable, Sendable`. The
/// macro writes their JSON coding (no `Codable`, which Embedded Swift lacks), so the same
/// source builds the native library and the WebAssembly module (docs/wasm.md).
public protocol Feature: Sendable {
    associatedtype Input: JSONCoded & Sendable
    associatedtype Action: Sendable
    associatedtype State: JSONCoded & Equatable & Sendable

    /// The name front ends create it by, e.g. `"counter"`.
    static var name: String { get }
    /// One line for `fusion inspect` and the manifest.
    static var summary: String { get }

    /// The settings it reads from the creation option `"settings"`
    /// (`Environment.setting(_:default:)`). Any other key, or a value of the wrong kind,
    /// is refused when an instance is made. Default: none.
    static var settings: [FeatureSetting] { get }

    init(environment: Environment)

    /// The state a new instance starts in when no state is given.
    var initialState: State { get }

    /// The version of `State`'s JSON shape: 1 until the author raises it. Raise it when
    /// a state saved before would no longer mean the same (a field renamed, removed, or
    /// its meaning changed), and write `migrateState(_:from:)`. Saved states carry it
    /// (the manifest's `"stateVersion"`), so that restoring one saved by an older
    /// version migrates or is refused, never half read.
    static var stateVersion: Int { get }

    /// Turns the JSON of a state saved at an older `stateVersion` (`version`, from 1 up)
    /// into the current shape; it is decoded as `State` afterwards. Throw when it
    /// cannot be done: the error's description reaches the host. The default knows no
    /// migration, so an older state is refused with a message naming both versions.
    static func migrateState(_ state: JSONValue, from version: Int) throws(StateMigrationError) -> JSONValue

    /// Recomputes `state`'s derived values from its other fields and this feature's
    /// environment (the signed-in user, settings). The runtime calls it on every state an
    /// instance is given (the option "state", a checkpoint), after any migration, so a
    /// derived value from outside is never trusted; types that list their derived fields
    /// (`DerivedFields`) may also leave them out. Default: nothing is derived.
    func deriveValues(in state: inout State)

    /// The effects, by id, that a checkpoint may stop and start again from the state
    /// alone (`restartEffects(for:)`): a crash journal checkpoints an instance only when
    /// every effect it has running is one of these and no host request is open. Default:
    /// none, so a journal checkpoints it only when no effect runs.
    static var restartableEffects: Set<EffectID> { get }
    /// The actions that start again what `state` says is running, among
    /// `restartableEffects` (the Wi-Fi page: the live scan while `isScanning`). Run at a
    /// checkpoint, after every effect was stopped, on the live instance and on one
    /// resumed from the checkpoint alike, so that both go on the same way.
    func restartEffects(for state: State) -> [Action]
    /// Turns what the person did into what the logic does. It reads the state but
    /// cannot change it.
    func transform(_ input: Input, state: State) -> [Action]

    /// Applies one action: changes the state and returns the effects to run.
    func perform(_ action: Action, state: inout State) -> Effect<Action>

    #if !hasFeature(Embedded)
        /// FusionKit's own; features do not implement it. The default below is compiled in
        /// the module that declares the conformance, where `Self` is a concrete type, so a
        /// library's `[Counter.self, …]` list yields instances whose hot path is
        /// specialized for each feature (see `JSONStore`).
        static func _fusionDefinition() -> FeatureDefinition
    #endif
}

extension Feature {
    /// No summary unless the feature gives one.
    public static var summary: String { "" }

    /// No settings: a `"settings"` option with any key is refused.
    public static var settings: [FeatureSetting] { [] }

    /// The first version of the state's shape.
    public static var stateVersion: Int { 1 }

    /// No effect is restarted: a checkpoint waits until none runs.
    public static var restartableEffects: Set<EffectID> { [] }
    /// Nothing to start again.
    public func restartEffects(for state: State) -> [Action] { [] }
    /// No migration: a state saved at an older `stateVersion` is refused.
    public static func migrateState(_ state: JSONValue, from version: Int) throws(StateMigrationError) -> JSONValue {
        throw StateMigrationError()
    }
    /// Nothing derived: a given state is used as decoded.
    public func deriveValues(in state: inout State) {}

    #if !hasFeature(Embedded)
        /// The default every feature uses: compiled in the feature's own module, so the
        /// runtime's code is specialized for it. Not for authors to implement.
        @inlinable
        public static func _fusionDefinition() -> FeatureDefinition { FeatureDefinition(Self.self) }
    #endif
}
