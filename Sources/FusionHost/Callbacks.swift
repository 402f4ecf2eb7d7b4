import CFusionKit

/// What a change callback's user_data points at: the Swift closure to call.
///
/// The library hands user_data back untouched, so the C callbacks below are plain
/// `@convention(c)` functions (no libffi closures) that find their Swift closure
/// through an `Unmanaged` box, retained for as long as the library may call it.
final class ChangeBox: Sendable {
    let onChange: @Sendable (UInt64) -> Void
    init(_ onChange: @escaping @Sendable (UInt64) -> Void) { self.onChange = onChange }

    /// The fk_change_fn given to fk_subscribe.
    static var function: fk_change_fn {
        { userData, _, version in
            guard let userData else { return }
            // Hold the box for the whole call: the closure may unsubscribe itself,
            // which releases the subscription's reference.
            let box = Unmanaged<ChangeBox>.fromOpaque(userData).retain().takeRetainedValue()
            box.onChange(version)
        }
    }
}

/// What a request handler's user_data points at.
final class RequestBox: Sendable {
    let onEvent: @Sendable (HostRequestEvent) -> Void
    init(_ onEvent: @escaping @Sendable (HostRequestEvent) -> Void) { self.onEvent = onEvent }

    /// The fk_request_fn given to fk_set_request_handler.
    static var function: fk_request_fn {
        { userData, _, eventJSON, eventLength in
            guard let userData, let eventJSON else { return }
            let box = Unmanaged<RequestBox>.fromOpaque(userData).retain().takeRetainedValue()
            // Borrowed only for this call: copy it.
            let json = String(decoding: UnsafeRawBufferPointer(start: eventJSON, count: eventLength), as: UTF8.self)
            box.onEvent(HostRequestEvent(json: json))
        }
    }
}

/// Work a feature asks its host to do, or the cancellation of such work, as told to a
/// request handler or taken with `pollRequest()`:
/// `{"event":"request","id":7,"kind":"fetchPet","payload":{…}}` or `{"event":"cancel","id":7}`.
public struct HostRequestEvent: Sendable, Equatable {
    /// The event exactly as the library wrote it.
    public let json: String
    /// "request" or "cancel"; nil if the library wrote something else.
    public let event: String?
    public let id: UInt64?
    /// For a request: what is asked for, in the feature's own words.
    public let kind: String?
    public let payload: JSONValue?

    public init(json: String) {
        self.json = json
        let value = try? JSONParser.parse(json)
        event = value?["event"]?.stringValue
        id = value?["id"]?.integerValue.flatMap(UInt64.init(exactly:))
        kind = value?["kind"]?.stringValue
        payload = value?["payload"]
    }

    public var isRequest: Bool { event == "request" }
    public var isCancel: Bool { event == "cancel" }
}
