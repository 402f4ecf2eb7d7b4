/// Why `Feature.migrateState(_:from:)` could not bring a saved state to the current
/// shape: it knows no way forward from that version (`StateMigrationError()`, what the
/// default throws; the state is refused, naming both versions), or the state did not
/// allow it (`StateMigrationError("…")`, whose words reach the host). One concrete type,
/// because Embedded Swift has typed throws only.
public struct StateMigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why, in words for the host; nil when there is no migration from that version.
    public let reason: String?

    /// No migration from that version: the state is refused.
    public init() { reason = nil }

    /// The migration exists but this state does not allow it, for `reason`.
    public init(_ reason: String) { self.reason = reason }

    /// Whether the feature knows no way forward from that version.
    public var isNoMigration: Bool { reason == nil }

    /// The reason, or that there is no migration.
    public var description: String { reason ?? "no migration from that state version" }
}

/// The name of `StateMigrationError()` before migrations had a typed error: features
/// that `throw NoStateMigration()` keep compiling.
public typealias NoStateMigration = StateMigrationError
