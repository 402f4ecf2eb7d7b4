import Foundation
import FusionJSON

/// Who is at the other end of a connection, as a verified token says: its subject, the
/// claims the bridge was told to pass on (`--jwt-claim`), and when the token expires.
public struct AuthenticatedUser: Sendable, Equatable {
    /// The token's `sub`: the user a session belongs to.
    public let subject: String
    /// The chosen claims, by name (only those the token has).
    public let claims: [String: JSONValue]
    /// When the bridge stops honouring the token, in seconds since 1970: its `exp` plus
    /// `--jwt-leeway`, the last moment a handshake would still take it. The connection is
    /// closed then. At most the end of `TokenVerifier.timeRange`.
    public let expires: Double

    /// `expires` past the end of `TokenVerifier.timeRange` (which the verifier refuses) is
    /// held at that end, and NaN is taken as long past: the connection's expiry timer
    /// sleeps until `expires`, and a sleep of 1e20 seconds traps the whole process.
    public init(subject: String, claims: [String: JSONValue], expires: Double) {
        self.subject = subject
        self.claims = claims
        self.expires = expires.isNaN ? 0 : min(expires, TokenVerifier.timeRange.upperBound)
    }

    /// Seconds until the token expires (negative once it has).
    public func secondsLeft(now: Double = Date().timeIntervalSince1970) -> Double { expires - now }

    /// What a feature is given as its instance option `"user"` (docs/security.md).
    public var optionValue: JSONValue {
        .object([
            JSONMember("subject", .string(subject)),
            JSONMember("claims", .object(claims.keys.sorted().map { JSONMember($0, claims[$0]!) }))
        ])
    }
}
