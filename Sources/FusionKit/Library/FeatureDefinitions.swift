/// A library's feature definitions, each made the first time it is asked for.
///
/// Describing a feature runs its inputs' and state's `Decodable` code against a
/// recording decoder, and the Swift runtime answers the first use of each type it meets
/// there by scanning every protocol conformance the process has loaded: a millisecond
/// or more for a library like the examples. A host that creates a Counter should not
/// pay for describing the Wi-Fi page.
final class FeatureDefinitions: @unchecked Sendable {
    private let types: [any Feature.Type]
    /// Guarded by `lock`; a slot is filled once and never changes after.
    private var made: [FeatureDefinition?]
    private let lock = ConditionLock()

    init(_ types: [any Feature.Type]) {
        self.types = types
        made = Array(repeating: nil, count: types.count)
    }

    /// The definition of the feature at `index`, made on first use. Made outside the lock
    /// (a feature's own code runs in there, and may ask the library for something); two
    /// threads asking at once may both make it, and the first one stored is kept.
    func definition(at index: Int) -> FeatureDefinition {
        if let known = lock.withLock({ made[index] }) { return known }
        let fresh = types[index]._fusionDefinition()
        return lock.withLock {
            if let stored = made[index] { return stored }
            made[index] = fresh
            return fresh
        }
    }

    var all: [FeatureDefinition] { types.indices.map(definition(at:)) }
}
