import Foundation
import NIOSSL
import PostgresNIO
@_spi(SharkDriver) import SharkORM

extension StoreConfiguration {
    /// A store on a PostgreSQL server reached over TCP: the same models, queries, events and
    /// sync as on the embedded drivers, for data that many processes and machines share.
    ///
    /// The password is read from where `password` says when the store opens, never passed
    /// as text; TLS with a verified certificate is the default, and plaintext is refused for a
    /// host that is not this machine (``PostgresTLS``). The store's tables live in `schema`
    /// (a PostgreSQL namespace, created when missing), so several stores can share one
    /// database.
    ///
    /// ```swift
    /// import SharkORM
    /// import SharkPostgres
    ///
    /// let configuration = StoreConfiguration.postgres(
    ///     host: "db.internal", database: "app", user: "app",
    ///     password: .environment("APP_DATABASE_PASSWORD"), tls: .verified())
    /// print(configuration.driverName)   // "postgres"; `try Store(configuration)` connects
    /// ```
    ///
    /// - Parameters:
    ///   - host: the server's host name or address.
    ///   - port: the server's port.
    ///   - database: the database to connect to.
    ///   - user: the role to connect as.
    ///   - password: where the password is read from when the store opens.
    ///   - tls: how the connection is secured (``PostgresTLS/disabled`` only on this machine).
    ///   - schema: the PostgreSQL schema (namespace) that holds the store's tables.
    ///   - connections: how many connections the store opens at most: one writer, the rest
    ///     for reads that run at once.
    public static func postgres(
        host: String, port: Int = 5432, database: String, user: String, password: PostgresPassword = .none,
        tls: PostgresTLS = .verified(), schema: String = "public", connections: Int = 8
    ) -> StoreConfiguration {
        let settings = PostgresSettings(
            endpoint: .tcp(host: host, port: port), database: database, user: user, password: password, tls: tls,
            schema: schema, connections: connections)
        return StoreConfiguration(driverName: "postgres") { tracer in try PostgresStoreDriver(settings, tracer: tracer)
        }
    }

    /// A store on a PostgreSQL server on this machine, through its Unix socket: the folder
    /// that holds it (`/var/run/postgresql` on Debian), as libpq's `host=/folder` takes it,
    /// and the server's port, which names the socket (`.s.PGSQL.5432`). No TLS: the socket
    /// never leaves the machine.
    ///
    /// ```swift
    /// import SharkORM
    /// import SharkPostgres
    ///
    /// let local = StoreConfiguration.postgres(socket: "/var/run/postgresql", database: "app", user: "app")
    /// print(local.driverName)   // "postgres"
    /// ```
    ///
    /// - Parameters:
    ///   - folder: the folder that holds the server's socket.
    ///   - port: the server's port, which names the socket file.
    ///   - database: the database to connect to.
    ///   - user: the role to connect as.
    ///   - password: where the password is read from when the store opens (none: peer
    ///     authentication, as Debian's default for local connections).
    ///   - schema: the PostgreSQL schema (namespace) that holds the store's tables.
    ///   - connections: how many connections the store opens at most.
    public static func postgres(
        socket folder: String, port: Int = 5432, database: String, user: String, password: PostgresPassword = .none,
        schema: String = "public", connections: Int = 8
    ) -> StoreConfiguration {
        let settings = PostgresSettings(
            endpoint: .socket(folder: folder, port: port), database: database, user: user, password: password,
            tls: .disabled, schema: schema, connections: connections)
        return StoreConfiguration(driverName: "postgres") { tracer in try PostgresStoreDriver(settings, tracer: tracer)
        }
    }
}

extension StoreConfiguration {
    /// A store on the server `settings` describe (tests: read-only stores, schemas dropped
    /// on close).
    package static func postgres(_ settings: PostgresSettings) -> StoreConfiguration {
        StoreConfiguration(driverName: "postgres") { tracer in try PostgresStoreDriver(settings, tracer: tracer) }
    }
}

/// Everything a PostgreSQL store connects with.
package struct PostgresSettings: Sendable {
    package enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int)
        /// The folder of the socket; the file in it is named for the port.
        case socket(folder: String, port: Int)
    }

    package var endpoint: Endpoint
    package var database: String
    package var user: String
    package var password: PostgresPassword
    package var tls: PostgresTLS
    package var schema: String
    package var connections: Int
    /// Every write refused: the server's `default_transaction_read_only`.
    package var isReadOnly = false
    /// For tests: the schema is dropped, with everything in it, when the store closes.
    package var dropsSchemaOnClose = false
    /// The name the store's connections show in `pg_stat_activity` (its listener's:
    /// this, then " listener").
    package var applicationName = "SharkORM"
    /// How long the record of a commit stays for other stores to read
    /// (docs/architecture.md, "Events across processes"): a store whose listener is away
    /// longer learns only that it missed commits.
    package var changeRetention = Duration.seconds(600)
    /// For tests: awaited by the listener before each connection attempt, to keep it away.
    package var beforeListenerConnects: (@Sendable () async -> Void)?

    package init(
        endpoint: Endpoint, database: String, user: String, password: PostgresPassword, tls: PostgresTLS,
        schema: String, connections: Int
    ) {
        self.endpoint = endpoint
        self.database = database
        self.user = user
        self.password = password
        self.tls = tls
        self.schema = schema
        self.connections = connections
    }

    /// The host as messages and password files name it.
    var hostDescription: String {
        switch endpoint {
        case .tcp(let host, let port): return "\(host):\(port)"
        case .socket(let folder, let port): return "\(folder)/.s.PGSQL.\(port)"
        }
    }

    /// Checks what can be checked before connecting: plaintext only on this machine.
    func validate() throws {
        guard !database.isEmpty else { throw PostgresError.invalidConfiguration("the database name is empty") }
        guard !user.isEmpty else { throw PostgresError.invalidConfiguration("the user name is empty") }
        guard !schema.isEmpty else { throw PostgresError.invalidConfiguration("the schema name is empty") }
        guard connections >= 2 else {
            throw PostgresError.invalidConfiguration(
                "a store needs at least 2 connections (one writer, one reader), not \(connections)")
        }
        if case .tcp(let host, _) = endpoint, tls.mode == .disabled, !Self.isLoopback(host) {
            throw PostgresError.insecureConnection(host: host)
        }
    }

    /// Whether `host` names this machine: `localhost`, 127.0.0.0/8 or ::1.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The password, read now from its source.
    func resolvePassword() throws -> String? {
        switch endpoint {
        case .tcp(let host, let port):
            return try password.resolve(hosts: [host], port: port, database: database, user: user)
        case .socket(let folder, let port):
            return try password.resolve(hosts: ["localhost", folder], port: port, database: database, user: user)
        }
    }

    /// The socket file of a Unix-socket endpoint.
    var socketPath: String? {
        guard case .socket(let folder, let port) = endpoint else { return nil }
        return (folder.hasSuffix("/") ? folder : folder + "/") + ".s.PGSQL.\(port)"
    }

    /// What every connection asks the server for at start-up: the store's schema first on the
    /// search path (raw SQL names its tables unqualified), and its name in `pg_stat_activity`.
    var startupParameters: [(String, String)] {
        var parameters = [
            ("search_path", PostgresQueryCompiler.identifier(schema)), ("application_name", applicationName),
        ]
        if isReadOnly { parameters.append(("default_transaction_read_only", "on")) }
        return parameters
    }

    /// NIOSSL's settings for a verified connection: the chain checked against the trusted
    /// authorities and the host name against the certificate.
    func tlsConfiguration() -> TLSConfiguration? {
        guard case .verified(let authority, _) = tls.mode else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        if let authority { configuration.trustRoots = .file(authority) }
        return configuration
    }

    var tlsServerName: String? {
        guard case .verified(_, let name) = tls.mode else { return nil }
        if let name { return name }
        if case .tcp(let host, _) = endpoint { return host }
        return nil
    }

    /// The writer's connection settings.
    func connectionConfiguration(password: String?) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        switch endpoint {
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS
            if let settings = tlsConfiguration() {
                do {
                    tls = .require(try NIOSSLContext(configuration: settings))
                } catch {
                    throw PostgresError.invalidConfiguration("the TLS settings do not load: \(error)")
                }
            } else {
                tls = .disable
            }
            configuration = .init(
                host: host, port: port, username: user, password: password, database: database, tls: tls)
        case .socket:
            configuration = .init(
                unixSocketPath: socketPath!, username: user, password: password, database: database)
        }
        configuration.options.tlsServerName = tlsServerName
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// The readers' pool settings.
    func clientConfiguration(password: String?) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch endpoint {
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS = tlsConfiguration().map { .require($0) } ?? .disable
            configuration = .init(
                host: host, port: port, username: user, password: password, database: database, tls: tls)
        case .socket:
            configuration = .init(unixSocketPath: socketPath!, username: user, password: password, database: database)
        }
        configuration.options.tlsServerName = tlsServerName
        configuration.options.additionalStartupParameters = startupParameters
        configuration.options.maximumConnections = max(1, connections - 1)
        configuration.options.minimumConnections = 0
        return configuration
    }
}
