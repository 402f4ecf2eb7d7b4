import FusionHost
import Metrics

/// What the bridge counts and times, through swift-metrics (docs/deploy.md, "Metrics"):
/// `fusion serve` bootstraps a Prometheus factory and serves the text at `/metrics`;
/// without a bootstrap (a bridge embedded in tests) every call goes nowhere.
struct BridgeMetrics: JournalObserver {
    let inputs = Counter(label: "fusion_inputs_total")
    /// From reading a `send` to writing its `ok` (the journal's write and the library's work).
    let inputToOK = Timer(label: "fusion_input_ok_seconds")
    /// From handing a record to the journal to its being durable (a sync, or a database commit).
    let journalWrite = Timer(label: "fusion_journal_write_seconds")
    let sessions = Gauge(label: "fusion_sessions")
    let instances = Gauge(label: "fusion_instances")
    let connections = Gauge(label: "fusion_connections")
    /// Sessions this bridge hands to another that asked for them.
    let handOvers = Counter(label: "fusion_handovers_total")
    let poisonInputs = Counter(label: "fusion_poison_inputs_total")

    /// A refusal sent to a client, by its status.
    func error(_ status: String) {
        Counter(label: "fusion_errors_total", dimensions: [("status", status)]).increment()
    }

    /// A session taken over from a shared store: from a holder that let it go (`released`),
    /// or from one that died or lost the database.
    func takeOver(released: Bool) {
        Counter(label: "fusion_takeovers_total", dimensions: [("previous", released ? "released" : "lost")]).increment()
    }

    func durable(after duration: Duration) {
        journalWrite.recordNanoseconds(duration.nanoseconds)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
