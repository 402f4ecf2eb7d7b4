import CFusionKit

/// A status code of the C ABI (`fk_status`). Codes are only ever added, so a host may
/// meet one it has no name for: it keeps the number, and the library names it.
public struct FusionStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let ok = FusionStatus(rawValue: FK_OK)
    public static let nullArgument = FusionStatus(rawValue: FK_ERR_NULL_ARGUMENT)
    public static let invalidHandle = FusionStatus(rawValue: FK_ERR_INVALID_HANDLE)
    public static let invalidUTF8 = FusionStatus(rawValue: FK_ERR_INVALID_UTF8)
    public static let malformedJSON = FusionStatus(rawValue: FK_ERR_MALFORMED_JSON)
    public static let unknownFeature = FusionStatus(rawValue: FK_ERR_UNKNOWN_FEATURE)
    public static let unknownInput = FusionStatus(rawValue: FK_ERR_UNKNOWN_INPUT)
    public static let invalidInput = FusionStatus(rawValue: FK_ERR_INVALID_INPUT)
    public static let invalidState = FusionStatus(rawValue: FK_ERR_INVALID_STATE)
    public static let invalidArgument = FusionStatus(rawValue: FK_ERR_INVALID_ARGUMENT)
    public static let unknownSubscription = FusionStatus(rawValue: FK_ERR_UNKNOWN_SUBSCRIPTION)
    public static let internalError = FusionStatus(rawValue: FK_ERR_INTERNAL)
    public static let unknownRequest = FusionStatus(rawValue: FK_ERR_UNKNOWN_REQUEST)
    public static let invalidResponse = FusionStatus(rawValue: FK_ERR_INVALID_RESPONSE)
    public static let limitExceeded = FusionStatus(rawValue: FK_ERR_LIMIT_EXCEEDED)
    public static let unsettled = FusionStatus(rawValue: FK_ERR_UNSETTLED)
    public static let busy = FusionStatus(rawValue: FK_ERR_BUSY)
    public static let pluginTrapped = FusionStatus(rawValue: FK_ERR_PLUGIN_TRAPPED)
    public static let pluginLimit = FusionStatus(rawValue: FK_ERR_PLUGIN_LIMIT)
    public static let instanceFailed = FusionStatus(rawValue: FK_ERR_INSTANCE_FAILED)

    public var description: String { String(rawValue) }
}

// A plain record of a failed call: alike in shape to other small records.
/// A call into a library that returned a status other than FK_OK.
public struct CallFailure: Sendable, Equatable {
    /// The C function that failed, e.g. "fk_send".
    public let function: String
    public let status: FusionStatus
    /// The library's name for the status, from fk_status_name(), e.g. "FK_ERR_UNKNOWN_INPUT".
    public let statusName: String
    /// The library's words for what went wrong, from fk_last_error_message().
    public let message: String

    public init(function: String, status: FusionStatus, statusName: String, message: String) {
        self.function = function
        self.status = status
        self.statusName = statusName
        self.message = message
    }
}

/// Everything that can go wrong between a host and a library.
public enum FusionHostError: Error, Sendable, Equatable, CustomStringConvertible {
    /// dlopen failed: no such file, not a shared object, a missing dependency.
    case cannotLoad(path: String, reason: String)
    /// The library lacks an entry point: it is not a FusionKit library, or it is older
    /// than the function the host asked for.
    case missingEntryPoint(path: String, symbol: String)
    /// The library speaks another ABI version; nothing else was called.
    case abiMismatch(path: String, library: UInt32, host: UInt32)
    /// The manifest is not the JSON the ABI describes.
    case invalidManifest(path: String, reason: String)
    /// libffi could not prepare a call (a host bug, or an unsupported platform).
    case callPreparation(symbol: String, status: UInt32)
    /// The library refused a call.
    case failed(CallFailure)

    /// The status of a refused call; nil for failures of loading.
    public var status: FusionStatus? {
        if case .failed(let failure) = self { return failure.status }
        return nil
    }

    public var description: String {
        switch self {
        case .cannotLoad(let path, let reason):
            return "cannot load library \(path): \(reason)"
        case .missingEntryPoint(let path, let symbol):
            return "\(path) is not a usable FusionKit library: it does not export \(symbol)"
        case .abiMismatch(let path, let library, let host):
            return
                "\(path) speaks FusionKit ABI version \(library), but this host speaks version \(host); rebuild one against the other's header"
        case .invalidManifest(let path, let reason):
            return "the manifest of \(path) is not valid: \(reason)"
        case .callPreparation(let symbol, let status):
            return "libffi could not prepare a call to \(symbol) (ffi_status \(status))"
        case .failed(let failure):
            let message = failure.message.isEmpty ? "(the library gave no message)" : failure.message
            return "\(failure.statusName): \(message)"
        }
    }
}
