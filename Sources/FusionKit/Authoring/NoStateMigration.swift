/// What the default `Feature.migrateState(_:from:)` throws: the feature knows no way
/// from an older state shape to its own, so the state is refused (naming both versions).
public struct NoStateMigration: Error, Sendable, Equatable {
    /// The refusal; throw it from `migrateState(_:from:)` for a version with no way forward.
    public init() {}
}
