import ArgumentParser
import FusionAuth
import FusionWeb

/// `fusion serve`'s flags for who may use the bridge (docs/security.md).
struct AuthOptions: ParsableArguments {
    enum Mode: String, ExpressibleByArgument, CaseIterable { case jwt }

    @Option(
        name: .customLong("auth"),
        help: ArgumentHelp("Who may connect: jwt (a token your login issues, checked with --jwt-key).", valueName: "jwt"))
    var mode: Mode?

    @Flag(
        name: .customLong("no-auth"),
        help: "Serve anyone who reaches the port, on an address other than loopback too (unsafe; a warning is printed).")
    var noAuth = false

    @Option(
        name: .customLong("jwt-key"),
        help: ArgumentHelp(
            "The key tokens are signed with: an HS256 secret (32 bytes or more), a PEM public key (RS256, ES256/384/512), or a JSON Web Key Set.",
            valueName: "file"))
    var keyFile: String?

    @Option(name: .customLong("jwt-audience"), help: ArgumentHelp("The aud a token must name: this bridge's.", valueName: "aud"))
    var audience: String?

    @Option(name: .customLong("jwt-issuer"), help: ArgumentHelp("The iss a token must have (checked when given).", valueName: "iss"))
    var issuer: String?

    @Option(
        name: .customLong("jwt-claim"),
        help: ArgumentHelp("A claim passed on to features with sub (the option \"user\"); repeatable.", valueName: "name"))
    var claims: [String] = []

    @Option(name: .customLong("jwt-cookie"), help: ArgumentHelp("The cookie the token comes in.", valueName: "name"))
    var cookie = "fusion_token"

    @Option(name: .customLong("jwt-leeway"), help: ArgumentHelp("Seconds of clock skew allowed on exp and nbf.", valueName: "seconds"))
    var leeway: Double = 30

    @Flag(
        name: .customLong("allow-session-in-url"),
        help: "Also take /ws?session=ID (unsafe: every access log on the way keeps the id, and whoever reads it can rejoin).")
    var allowSessionInURL = false

    @Option(name: .customLong("max-sessions-per-user"), help: "Sessions one signed-in user may have at once.")
    var maxSessionsPerUser = 16

    @Option(name: .customLong("max-instances-per-user"), help: "Instances one signed-in user may have, all sessions together.")
    var maxInstancesPerUser = 64

    @Option(name: .customLong("max-messages-per-user"), help: "Messages per second from one signed-in user's connections together.")
    var maxMessagesPerUser = 200

    func validate(host: String) throws {
        if mode == .jwt {
            guard keyFile != nil else { throw ValidationError("--auth jwt needs --jwt-key FILE: the key your login signs tokens with") }
            guard let audience, !audience.isEmpty else {
                throw ValidationError("--auth jwt needs --jwt-audience: a token made for another service must not open this one")
            }
            if noAuth { throw ValidationError("--auth and --no-auth contradict each other") }
        } else {
            for (flag, given) in [("--jwt-key", keyFile != nil), ("--jwt-audience", audience != nil), ("--jwt-issuer", issuer != nil)]
            where given {
                throw ValidationError("\(flag) is for --auth jwt")
            }
            if !noAuth && !BridgeConfiguration.isLoopback(host) {
                throw ValidationError(
                    "--host \(host) lets other machines reach the bridge: add --auth jwt (docs/security.md), or --no-auth to serve anyone who reaches it"
                )
            }
        }
        for (name, value) in [
            ("--max-sessions-per-user", maxSessionsPerUser), ("--max-instances-per-user", maxInstancesPerUser),
            ("--max-messages-per-user", maxMessagesPerUser)
        ] where value < 1 {
            throw ValidationError("\(name) is at least 1")
        }
        guard leeway >= 0, leeway <= 600 else { throw ValidationError("--jwt-leeway is 0 to 600 seconds") }
    }

    /// Sets the configuration's auth; reads the key file (a message naming what is wrong).
    func apply(to configuration: inout BridgeConfiguration) async throws {
        configuration.tokenCookie = cookie
        configuration.allowSessionInURL = allowSessionInURL
        configuration.maxSessionsPerUser = maxSessionsPerUser
        configuration.maxInstancesPerUser = maxInstancesPerUser
        configuration.maxMessagesPerUser = maxMessagesPerUser
        guard mode == .jwt, let keyFile, let audience else { return }
        do throws(KeyFileError) {
            configuration.authenticator = try await TokenVerifier(
                keyFile: keyFile, audience: audience, issuer: issuer, passedClaims: claims, leeway: leeway)
        } catch {
            throw CLIError(.usage, "--jwt-key \(keyFile): \(error.description)")
        }
    }
}
