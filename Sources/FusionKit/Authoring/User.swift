/// The signed-in user an instance serves, as its host vouches for them: the creation
/// option `"user"`, `{"subject": "…", "claims": {…}}`. `fusion serve --auth jwt` sets it
/// from the user's verified token (the subject is the token's `sub`, the claims those
/// named by `--jwt-claim`) and refuses a page that sends it itself; any other host
/// sets it from its own sign-in. A feature reads it from `Environment.user`, so that a
/// screen can say who is signed in without trusting the page.
public struct User: Sendable, Equatable {
    /// Who the user is, stable across sign-ins (a token's `sub`).
    public var subject: String
    /// What else the host passes on about them, by name (an object; may be empty).
    public var claims: JSONValue

    /// A user as a host vouches for them: who they are, and what else it passes on.
    public init(subject: String, claims: JSONValue = [:]) {
        self.subject = subject
        self.claims = claims
    }

    /// A claim given as text ("name", "email"), or nil.
    public func claim(_ name: String) -> String? { claims[name]?.stringValue }

    /// What to call them: the `name` claim when it has something besides whitespace,
    /// else the subject (a token may carry `"name": ""`).
    public var displayName: String {
        guard let name = claim("name"), !name.allSatisfy({ $0.isWhitespace }) else { return subject }
        return name
    }

    init(option value: JSONValue) throws(FusionError) {
        guard let subject = value["subject"]?.stringValue, !subject.isEmpty else {
            throw FusionError(
                .invalidArgument, "option \"user\" must be an object with a non-empty \"subject\"; found \(value.jsonText)")
        }
        let claims = value["claims"] ?? [:]
        guard case .object = claims else {
            throw FusionError(.invalidArgument, "option \"user\": \"claims\" must be an object; found \(claims.kindDescription)")
        }
        if let other = value.members?.first(where: { $0.key != "subject" && $0.key != "claims" }) {
            throw FusionError(.invalidArgument, "option \"user\" has \"subject\" and \"claims\"; unknown key \"\(other.key)\"")
        }
        self.init(subject: subject, claims: claims)
    }
}
