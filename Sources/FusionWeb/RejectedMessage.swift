import FusionHost

/// A message that could not be read: the error, and the id to answer to when the
/// message had a usable one.
struct RejectedMessage: Error {
    var id: JSONValue?
    var error: BridgeError
}
