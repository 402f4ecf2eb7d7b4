/// Why a connection's token was not accepted. Each says what to do; none says anything
/// about a session (docs/security.md).
public enum AuthFailure: Error, Equatable, Sendable {
    /// No token: neither the cookie nor `Authorization: Bearer`.
    case missing(cookie: String)
    /// Not three base64url parts of JSON, or a header without `alg`.
    case malformed
    /// `alg` is `none`, or one the bridge's keys do not sign with.
    case algorithmRefused(String)
    /// The signature does not verify with any of the bridge's keys.
    case badSignature
    /// With a key set: the token names no `kid`, or one the set does not have.
    case unknownKey
    /// `exp` has passed (or is missing: a token that never expires is refused).
    case expired
    /// `nbf` is still to come.
    case notYetValid
    /// `exp`, `nbf` or `iat` is not a time (seconds since 1970) within `TokenVerifier.timeRange`:
    /// a token that claims to expire in the year 3e12 was made by mistake or to break things.
    case timeOutOfRange(claim: String)
    /// `aud` does not name this bridge's audience.
    case wrongAudience
    /// `iss` is not the issuer the bridge trusts.
    case wrongIssuer
    /// No `sub`, or an empty one: a session must belong to someone.
    case noSubject

    /// Words for the client (`BRIDGE_UNAUTHENTICATED`) and the log.
    public var message: String {
        switch self {
        case .missing(let cookie):
            "sign in first: no token (the \(cookie) cookie, or Authorization: Bearer)"
        case .malformed: "the token is not a JSON Web Token"
        case .algorithmRefused(let alg): "the token's algorithm \"\(alg)\" is not accepted here"
        case .badSignature: "the token's signature does not verify"
        case .unknownKey: "the token's key (kid) is not one of the bridge's"
        case .expired: "the token has expired (or has no exp): sign in again"
        case .notYetValid: "the token is not valid yet (nbf)"
        case .timeOutOfRange(let claim):
            "the token's \(claim) is not a time the bridge accepts (seconds since 1970, 0 to 253402300799: the end of the year 9999)"
        case .wrongAudience: "the token is not for this audience (aud)"
        case .wrongIssuer: "the token is not from the trusted issuer (iss)"
        case .noSubject: "the token names no user (sub)"
        }
    }
}
