/// Who answers requests.
public enum RequestMode: String, Sendable {
    /// The library, with each request's `builtin` answer.
    case builtin
    /// The host: a handler is told, or events wait to be polled.
    case host
}
