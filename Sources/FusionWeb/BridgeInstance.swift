import FusionHost
import Synchronization

/// One instance of a feature in a session: the library's instance (reached only through
/// `HostedInstance`, the C ABI) under the id the page knows it by, and the host
/// requests it has open, so that a page that reloads is asked again.
final class BridgeInstance: Sendable {
    /// The id pages use: the key they chose, or "#N".
    let id: String
    let feature: String
    let hosted: HostedInstance
    /// Open host requests in the order they came: id and the message that announced it.
    private let openRequests = Mutex<[(id: UInt64, message: String)]>([])

    init(id: String, feature: String, hosted: HostedInstance) {
        self.id = id
        self.feature = feature
        self.hosted = hosted
    }

    /// The messages announcing the requests still open, for a connection joining late.
    var openRequestMessages: [String] { openRequests.withLock { $0.map(\.message) } }

    /// Keeps track of a request or cancel event; returns the message for the pages.
    func record(eventJSON: String) -> String? {
        guard let event = ServerMessage.hostEvent(instance: id, eventJSON: eventJSON) else { return nil }
        openRequests.withLock { open in
            if event.isRequest {
                open.append((event.requestID, event.message))
            } else {
                open.removeAll { $0.id == event.requestID }
            }
        }
        return event.message
    }

    /// A request answered by a page is no longer open.
    func answered(_ requestID: UInt64) {
        openRequests.withLock { $0.removeAll { $0.id == requestID } }
    }
}
