import Foundation
import Logging
import PostgresNIO
import SharkDriverConformance
@_spi(SharkDriver) import SharkORM
import Synchronization

@testable import SharkPostgres

/// The throw-away server scripts/test.sh starts (scripts/postgres-server.sh), as its
/// environment describes it. Tests that need it and find none fail: they never pass by
/// skipping.
public enum PostgresTestServer {
    public struct Missing: Error, CustomStringConvertible {
        public init() {}

        public var description: String {
            "no PostgreSQL server for the tests: run them with `bash scripts/test.sh`, which starts a throw-away "
                + "one (SHARK_POSTGRES_HOST, _PORT, _SOCKET, _USER and _PASSWORD_FILE are not set)"
        }
    }

    public static let environment = ProcessInfo.processInfo.environment

    public static var host: String? { environment["SHARK_POSTGRES_HOST"] }
    public static var port: Int? { environment["SHARK_POSTGRES_PORT"].flatMap { Int($0) } }
    public static var socket: String? { environment["SHARK_POSTGRES_SOCKET"] }
    public static var user: String { environment["SHARK_POSTGRES_USER"] ?? "shark" }
    public static var passwordFile: String? { environment["SHARK_POSTGRES_PASSWORD_FILE"] }
    /// The authority that signed the server's certificate.
    public static var certificateAuthority: String? { environment["SHARK_POSTGRES_CA_FILE"] }

    private static let counter = Atomic<Int>(0)

    /// A schema name no other store of this run uses.
    public static func uniqueSchema() -> String {
        "shark_test_\(getpid())_\(counter.add(1, ordering: .relaxed).newValue)"
    }

    /// The settings of a store in `schema` on the test server, over TCP with the password.
    package static func settings(schema: String, readOnly: Bool = false, dropsSchema: Bool = false) throws
        -> PostgresSettings
    {
        guard let host, let port, let passwordFile else { throw Missing() }
        var settings = PostgresSettings(
            endpoint: .tcp(host: host, port: port), database: "postgres", user: user,
            password: .file(passwordFile), tls: .disabled, schema: schema, connections: 3)
        settings.isReadOnly = readOnly
        settings.dropsSchemaOnClose = dropsSchema
        return settings
    }

    /// The driver as the conformance suite sees it: a fresh store is a new schema (dropped
    /// when it closes); a "file" is the schema its path names, reopened by reconnecting.
    public static let conformance = ConformanceDriver(
        name: "postgres", hasRawSQL: true, sqlDialect: .postgresql,
        temporary: { .postgres(try settings(schema: uniqueSchema(), dropsSchema: true)) },
        file: { path, readOnly in
            let settings = (try? Self.settings(schema: schemaName(forPath: path), readOnly: readOnly))
            return settings.map { StoreConfiguration.postgres($0) }
                ?? StoreConfiguration(driverName: "postgres") { _ in throw Missing() }
        })

    /// The schema that stands for the file at `path`.
    public static func schemaName(forPath path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "shark_file_" + String(hash, radix: 16)
    }

    /// Ends, from a connection of its own, the server processes of connections named
    /// `application` (in `state`, such as "idle in transaction", when given): a connection
    /// lost mid-transaction, a listener cut off. Returns how many it ended.
    @discardableResult
    public static func terminateBackends(named application: String, state: String? = nil) throws -> Int64 {
        try adminCount(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1 "
                + "AND ($2::text IS NULL OR state = $2)", [application, state])
    }

    /// How many connections named `application` the server has.
    public static func backendCount(named application: String) throws -> Int64 {
        try adminCount("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", [application])
    }

    /// Runs a query whose answer is one count, from a connection of its own.
    private static func adminCount(_ sql: String, _ arguments: [String?]) throws -> Int64 {
        let settings = try settings(schema: "public")
        let password = try settings.resolvePassword()
        let configuration = try settings.connectionConfiguration(password: password)
        // On a thread of its own: the caller may hold a thread of the cooperative pool.
        let executor = SuspendingDriverExecutor(name: "shark-tests admin")
        defer { executor.shutdown() }
        return try executor.wait {
            let logger = Logger(label: "shark-tests")
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            var bindings = PostgresBindings()
            for argument in arguments {
                if let argument { bindings.append(argument) } else { bindings.appendNull() }
            }
            do {
                let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
                    .collect()
                try await connection.close()
                return try rows[0].decode(Int64.self)
            } catch {
                try? await connection.close()
                throw error
            }
        }
    }
}
