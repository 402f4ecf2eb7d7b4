import PostgresNIO

/// Where the journal database is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`
/// (`postgresql://` too). Without a password in the address, `PGPASSWORD` is used, as by
/// libpq; without one at all, the server must trust the user (a loopback test cluster).
public struct PostgresAddress: Sendable, CustomStringConvertible {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String

    /// nil when `text` is not a postgres:// address; throws when it is one, badly written.
    public init?(_ text: String, environment: [String: String] = [:]) throws(AddressError) {
        let schemes = ["postgres://", "postgresql://"]
        guard let scheme = schemes.first(where: { text.hasPrefix($0) }) else { return nil }
        let rest = text.dropFirst(scheme.count)
        guard let at = rest.lastIndex(of: "@") else { throw AddressError("\(text): no user (postgres://USER@HOST:PORT/DATABASE)") }
        let credentials = rest[..<at]
        let place = rest[rest.index(after: at)...]
        if let colon = credentials.firstIndex(of: ":") {
            user = String(credentials[..<colon])
            password = String(credentials[credentials.index(after: colon)...])
        } else {
            user = String(credentials)
            password = environment["PGPASSWORD"]
        }
        guard !user.isEmpty else { throw AddressError("\(text): no user (postgres://USER@HOST:PORT/DATABASE)") }
        guard let slash = place.firstIndex(of: "/"), place.index(after: slash) < place.endIndex else {
            throw AddressError("\(text): no database (postgres://USER@HOST:PORT/DATABASE)")
        }
        let hostAndPort = place[..<slash]
        database = String(place[place.index(after: slash)...])
        if let colon = hostAndPort.lastIndex(of: ":") {
            host = String(hostAndPort[..<colon])
            guard let port = Int(hostAndPort[hostAndPort.index(after: colon)...]), (1...65535).contains(port) else {
                throw AddressError("\(text): the port is not a number from 1 to 65535")
            }
            self.port = port
        } else {
            host = String(hostAndPort)
            port = 5432
        }
        guard !host.isEmpty else { throw AddressError("\(text): no host") }
    }

    /// The address without its password, for logs and messages.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    var configuration: PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
        configuration.options.connectTimeout = .seconds(2)
        return configuration
    }

    public struct AddressError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
