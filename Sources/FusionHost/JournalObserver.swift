/// Hears how long a journal's records take to become durable (a host's metrics:
/// `fusion serve`'s `fusion_journal_write_seconds`).
public protocol JournalObserver: Sendable {
    /// A record became durable `duration` after it was handed to the store.
    func durable(after duration: Duration)
}
