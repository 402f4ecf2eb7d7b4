/// Why a call failed: a status that programs branch on, and a message for people.
public struct FusionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status the C ABI returns for it.
    public var status: FusionStatus
    /// What went wrong, in words a person can act on (`fk_last_error_message`).
    public var message: String

    /// An error of a status, with its explanation.
    public init(_ status: FusionStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// "FK_ERR_…: message".
    public var description: String { "\(status.symbol): \(message)" }
}

// One case per C constant, in the header's order: this mirrors include/fusionkit.h (as
// FusionLimit mirrors the FK_LIMIT_ constants), so the two enums look alike.
/// The status codes of the C ABI (`FK_OK`, `FK_ERR_…` in include/fusionkit.h).
/// Codes are only ever added, never renumbered.
public enum FusionStatus: Int32, Sendable, CaseIterable {
    case ok = 0
    case nullArgument = 1
    case invalidHandle = 2
    case invalidUTF8 = 3
    case malformedJSON = 4
    case unknownFeature = 5
    case unknownInput = 6
    case invalidInput = 7
    case invalidState = 8
    case invalidArgument = 9
    case unknownSubscription = 10
    case internalError = 11
    case unknownRequest = 12
    case invalidResponse = 13
    case limitExceeded = 14
    case unsettled = 15
    case busy = 16
    case pluginTrapped = 17
    case pluginLimit = 18
    case instanceFailed = 19

    /// The name of the constant in the C header.
    public var symbol: String {
        switch self {
        case .ok: return "FK_OK"
        case .nullArgument: return "FK_ERR_NULL_ARGUMENT"
        case .invalidHandle: return "FK_ERR_INVALID_HANDLE"
        case .invalidUTF8: return "FK_ERR_INVALID_UTF8"
        case .malformedJSON: return "FK_ERR_MALFORMED_JSON"
        case .unknownFeature: return "FK_ERR_UNKNOWN_FEATURE"
        case .unknownInput: return "FK_ERR_UNKNOWN_INPUT"
        case .invalidInput: return "FK_ERR_INVALID_INPUT"
        case .invalidState: return "FK_ERR_INVALID_STATE"
        case .invalidArgument: return "FK_ERR_INVALID_ARGUMENT"
        case .unknownSubscription: return "FK_ERR_UNKNOWN_SUBSCRIPTION"
        case .internalError: return "FK_ERR_INTERNAL"
        case .unknownRequest: return "FK_ERR_UNKNOWN_REQUEST"
        case .invalidResponse: return "FK_ERR_INVALID_RESPONSE"
        case .limitExceeded: return "FK_ERR_LIMIT_EXCEEDED"
        case .unsettled: return "FK_ERR_UNSETTLED"
        case .busy: return "FK_ERR_BUSY"
        case .pluginTrapped: return "FK_ERR_PLUGIN_TRAPPED"
        case .pluginLimit: return "FK_ERR_PLUGIN_LIMIT"
        case .instanceFailed: return "FK_ERR_INSTANCE_FAILED"
        }
    }
}

extension FusionError {
    /// A JSON text that could not be parsed, as the caller's `what` ("input", "initial state").
    public init(_ error: JSONParseError, in what: String) {
        switch error.kind {
        case .invalidUTF8: self.init(.invalidUTF8, "\(what) is not valid UTF-8: \(error.description)")
        case .empty: self.init(.malformedJSON, "\(what) is empty: \(error.description)")
        case .syntax: self.init(.malformedJSON, "\(what) is not valid JSON: \(error.description)")
        }
    }
}
