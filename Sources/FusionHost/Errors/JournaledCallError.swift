/// Why a journaled call did not happen as asked.
public enum JournaledCallError: Error, Sendable, CustomStringConvertible {
    /// Journaled, then refused by the library (as it will be on replay): bad input.
    case refused(FusionHostError)
    /// Not written to the journal, so not applied either.
    case notJournaled(JournalError)

    public var description: String {
        switch self {
        case .refused(let error): return "\(error)"
        case .notJournaled(let error): return "not applied, since it could not be journaled: \(error)"
        }
    }
}
