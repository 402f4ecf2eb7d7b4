/// The C types that appear in the ABI's signatures.
enum CType: Sendable, Equatable {
    case void
    case int32  // fk_status
    case uint32
    case uint64  // fk_instance, versions, ids, nanoseconds
    case int64  // fk_limit's values
    case size  // size_t
    case pointer  // every pointer, function pointers included
}

/// The functions of include/fusionkit.h, with their C signatures: the table libffi
/// calls are prepared from. Adding a function to the header means adding its case and
/// its row below (the compiler asks for the row); FusionHostTests checks this table
/// against the header's declarations.
enum EntryPoint: String, CaseIterable, Sendable {
    case abiVersion = "fk_abi_version"
    case libraryVersion = "fk_library_version"
    case statusName = "fk_status_name"
    case lastErrorMessage = "fk_last_error_message"
    case manifest = "fk_manifest"
    case manifestSummary = "fk_manifest_summary"
    case featureManifest = "fk_feature_manifest"
    case free = "fk_free"
    case create = "fk_create"
    case createWithOptions = "fk_create_with_options"
    case destroy = "fk_destroy"
    case send = "fk_send"
    case state = "fk_state"
    case version = "fk_version"
    case statePatch = "fk_state_patch"
    case stateInto = "fk_state_into"
    case sendAndRead = "fk_send_and_read"
    case sendAndReadCall = "fk_send_and_read_call"
    case subscribe = "fk_subscribe"
    case unsubscribe = "fk_unsubscribe"
    case advanceClock = "fk_advance_clock"
    case pending = "fk_pending"
    case nextWake = "fk_next_wake"
    case checkpoint = "fk_checkpoint"
    case restartEffects = "fk_restart_effects"
    case setRequestHandler = "fk_set_request_handler"
    case pollRequest = "fk_poll_request"
    case respond = "fk_respond"
    case failRequest = "fk_fail_request"
    case history = "fk_history"
    case goto = "fk_goto"
    case limit = "fk_limit"

    var symbol: String { rawValue }

    /// Return type, parameter types, and whether the library must export it.
    ///
    /// Required entry points are resolved when a library loads, and a library lacking one
    /// is refused. The others (added to the ABI later) are resolved on first use, so the
    /// host works with libraries that predate them; calling one a library lacks throws
    /// `missingEntryPoint`.
    var signature: (returns: CType, parameters: [CType], required: Bool) {
        switch self {
        case .abiVersion: return (.uint32, [], true)
        case .libraryVersion: return (.pointer, [], true)
        case .statusName: return (.pointer, [.int32], true)
        case .lastErrorMessage: return (.pointer, [], true)
        case .manifest: return (.int32, [.pointer, .pointer], true)
        case .manifestSummary: return (.int32, [.pointer, .pointer], false)
        case .featureManifest: return (.int32, [.pointer, .size, .pointer, .pointer], false)
        case .free: return (.void, [.pointer], true)
        case .create: return (.int32, [.pointer, .size, .pointer, .size, .pointer], true)
        case .createWithOptions: return (.int32, [.pointer, .size, .pointer, .size, .pointer], false)
        case .destroy: return (.int32, [.uint64], true)
        case .send: return (.int32, [.uint64, .pointer, .size], true)
        case .state: return (.int32, [.uint64, .pointer, .pointer, .pointer], true)
        case .version: return (.int32, [.uint64, .pointer], true)
        case .statePatch: return (.int32, [.uint64, .uint64, .pointer, .pointer, .pointer], false)
        case .stateInto: return (.int32, [.uint64, .pointer], false)
        case .sendAndRead: return (.int32, [.uint64, .pointer, .size, .pointer], false)
        case .sendAndReadCall: return (.int32, [.pointer, .pointer], false)
        case .subscribe: return (.int32, [.uint64, .pointer, .pointer, .pointer], true)
        case .unsubscribe: return (.int32, [.uint64, .uint64], true)
        case .advanceClock: return (.int32, [.uint64, .uint64], false)
        case .pending: return (.int32, [.uint64, .pointer, .pointer], false)
        case .nextWake: return (.int32, [.uint64, .pointer], false)
        case .checkpoint: return (.int32, [.uint64, .pointer, .pointer], false)
        case .restartEffects: return (.int32, [.uint64], false)
        case .setRequestHandler: return (.int32, [.uint64, .pointer, .pointer], false)
        case .pollRequest: return (.int32, [.uint64, .pointer, .pointer], false)
        case .respond: return (.int32, [.uint64, .uint64, .pointer, .size], false)
        case .failRequest: return (.int32, [.uint64, .uint64, .pointer, .size], false)
        case .history: return (.int32, [.uint64, .pointer, .pointer], false)
        case .goto: return (.int32, [.uint64, .uint64, .pointer], false)
        case .limit: return (.int64, [.int32, .int64], false)
        }
    }

    var isRequired: Bool { signature.required }
}
