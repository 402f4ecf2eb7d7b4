import Foundation
import FusionJSON
import JWTKit

/// Verifies the JSON Web Tokens a team's own login issues (`fusion serve --auth jwt`):
/// the signature with the bridge's keys (jwt-kit: no cryptography is written here),
/// then `exp`, `nbf` and `iat` (each a time within `timeRange`), `aud`, `iss` and `sub`.
/// `alg` must be one the keys sign with: `none` never is, and a public key is never taken
/// for an HMAC secret.
public final class TokenVerifier: Sendable {
    private let keys: JWTKeyCollection
    /// The `alg` values the keys accept.
    public let algorithms: Set<String>
    /// The `kid` a token must name, with a key set (jwt-kit would fall back on its first
    /// key for an unknown one); nil with a single key.
    private let kids: Set<String>?
    public let audience: String
    public let issuer: String?
    /// The claims passed on to features besides `sub` (`--jwt-claim`).
    public let passedClaims: [String]
    /// Clock skew allowed on `exp` and `nbf`, in seconds.
    public let leeway: Double
    /// Words for the log: what kind of key, from which file.
    public let description: String

    /// Reads the keys of `keyFile` (`KeyFile`); throws a message naming what is wrong.
    public init(keyFile: String, audience: String, issuer: String?, passedClaims: [String], leeway: Double) async throws(KeyFileError) {
        let file = try KeyFile(path: keyFile)
        keys = JWTKeyCollection()
        algorithms = try await file.add(to: keys)
        kids = file.kids
        self.audience = audience
        self.issuer = issuer
        self.passedClaims = passedClaims
        self.leeway = leeway
        description = "\(file.kind) from \(keyFile) (\(algorithms.sorted().joined(separator: ", ")))"
    }

    /// The user `token` names, or why it is refused. `now` is seconds since 1970.
    public func verify(_ token: String, now: Double = Date().timeIntervalSince1970) async -> Result<AuthenticatedUser, AuthFailure> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.json(parts[0]), let payload = Self.json(parts[1]) else { return .failure(.malformed) }
        guard let alg = header["alg"]?.stringValue else { return .failure(.malformed) }
        guard algorithms.contains(alg) else { return .failure(.algorithmRefused(alg)) }
        if let kids, !(header["kid"]?.stringValue.map(kids.contains) ?? false) { return .failure(.unknownKey) }
        let claims: StandardClaims
        do {
            claims = try await keys.verify(token, as: StandardClaims.self)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure || error.errorType == .malformedToken {
            return .failure(.malformed)
        } catch {
            // A wrong key, a changed payload, an unknown kid: all one thing to the client.
            return .failure(.badSignature)
        }
        // The times are read from the payload as written, before anything computes with
        // them: an `exp` of 1e20 once reached the expiry timer and trapped the process.
        for name in ["exp", "nbf", "iat"] {
            if let value = payload[name], !(value.numberValue.map(Self.timeRange.contains) ?? false) {
                return .failure(.timeOutOfRange(claim: name))
            }
        }
        guard let expires = payload["exp"]?.numberValue, now < expires + leeway else { return .failure(.expired) }
        if let notBefore = payload["nbf"]?.numberValue, now + leeway < notBefore { return .failure(.notYetValid) }
        guard let audiences = claims.aud?.value, audiences.contains(audience) else { return .failure(.wrongAudience) }
        if let issuer, claims.iss?.value != issuer { return .failure(.wrongIssuer) }
        guard let subject = claims.sub?.value, !subject.isEmpty else { return .failure(.noSubject) }
        var passed: [String: JSONValue] = [:]
        for name in passedClaims { if let value = payload[name] { passed[name] = value } }
        // Honoured for as long as the handshake would take it: the expiry timer closes the
        // connection at `exp` plus the leeway, not at `exp` (a token welcomed within the
        // leeway was closed at once).
        return .success(AuthenticatedUser(subject: subject, claims: passed, expires: expires + leeway))
    }

    /// The times `exp`, `nbf` and `iat` may name, in seconds since 1970 (RFC 7519's
    /// NumericDate, fractions allowed): from 1970 to the last second of the year 9999. A
    /// token outside it is refused (`AuthFailure.timeOutOfRange`), never clamped: no login
    /// issues one, and a guess at what it meant could keep a session open for ever.
    public static let timeRange: ClosedRange<Double> = 0...253_402_300_799

    /// A base64url part as JSON (only read once the signature verified, for the claims
    /// jwt-kit does not model, and before, for `alg`: that read decides nothing alone).
    static func json(_ part: Substring) -> JSONValue? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), let value = try? JSONParser.parse([UInt8](data), depthLimit: .init(levels: 32)),
            value.members != nil
        else { return nil }
        return value
    }
}

/// The registered claims the bridge checks; the rest of the payload is read as JSON, the
/// times too (`exp`, `nbf`, `iat`): their range is checked on the numbers as written, and a
/// time that is not a number is refused for what it is, not as a payload jwt-kit cannot read.
struct StandardClaims: JWTPayload {
    var sub: SubjectClaim?
    var aud: AudienceClaim?
    var iss: IssuerClaim?

    // The checks are TokenVerifier's, with the leeway and messages of its own.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
