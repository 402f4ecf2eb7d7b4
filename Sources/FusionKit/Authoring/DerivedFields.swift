/// A type in a feature's state that has fields its feature computes from the others
/// (`Feature.deriveValues(in:)`), listed by their JSON names. A state given to an
/// instance may leave these fields out: they are read as empty (0, false, "", null, [])
/// and then recomputed, so a state saved before a derived field existed still loads, at
/// the same `stateVersion`. A field not listed here stays required.
///
/// ```swift
/// extension Network: DerivedFields {
///     public static let derivedFields: Set<String> = ["signalBars", "signalPercent"]
/// }
/// ```
public protocol DerivedFields {
    /// The JSON names of the fields `Feature.deriveValues(in:)` recomputes.
    static var derivedFields: Set<String> { get }
}
