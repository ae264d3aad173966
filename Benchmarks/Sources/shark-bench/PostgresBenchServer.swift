import Foundation
import Logging
import PostgresNIO
@_spi(SharkDriver) import SharkORM

/// The PostgreSQL server the PostgreSQL family runs against, as `scripts/postgres-server.sh`
/// describes the throw-away one it starts (`SHARK_POSTGRES_HOST`, `_PORT`, `_USER`,
/// `_PASSWORD_FILE`): every backend of a run on the same server, each repetition in a schema
/// of its own, dropped when the backend closes.
struct PostgresBenchServer: Sendable {
    let host: String
    let port: Int
    let user: String
    let passwordFile: String
    let database = "postgres"

    static func fromEnvironment() throws -> PostgresBenchServer {
        let environment = ProcessInfo.processInfo.environment
        guard let host = environment["SHARK_POSTGRES_HOST"],
            let port = environment["SHARK_POSTGRES_PORT"].flatMap({ Int($0) }),
            let passwordFile = environment["SHARK_POSTGRES_PASSWORD_FILE"]
        else {
            throw BenchError.noServer
        }
        return PostgresBenchServer(
            host: host, port: port, user: environment["SHARK_POSTGRES_USER"] ?? "shark", passwordFile: passwordFile)
    }

    var password: String {
        get throws {
            try String(contentsOfFile: passwordFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// A schema name no other backend of this run uses.
    static func freshSchema() -> String {
        "shark_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
    }

    /// A connection of postgres-nio's own, to this server, plaintext (the server is on this
    /// machine), with `schema` as its search path when given.
    func connect(schema: String? = nil, logger: Logger) async throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: try password, database: database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        if let schema {
            try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", logger: logger)
            try await connection.query("SET search_path TO \(unescaped: schema)", logger: logger)
        }
        return connection
    }

    /// Drops `schema` and everything in it, from a connection of its own.
    func dropSchema(_ schema: String, on executor: SuspendingDriverExecutor) {
        let logger = Logger(label: "shark-bench")
        _ = try? executor.wait {
            let connection = try await connect(logger: logger)
            _ = try? await connection.query("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE", logger: logger)
            try? await connection.close()
        }
    }

    /// The server's version, as `SHOW server_version` prints it.
    func version() throws -> String {
        let executor = SuspendingDriverExecutor(name: "shark-bench version")
        defer { executor.shutdown() }
        let logger = Logger(label: "shark-bench")
        return try executor.wait {
            let connection = try await connect(logger: logger)
            let rows = try? await connection.query("SHOW server_version", logger: logger).collect()
            try? await connection.close()
            let version = try rows?.first?.decode(String.self)
            return version?.split(separator: " ").first.map(String.init) ?? "?"
        }
    }

    /// A store of SharkPostgres in `schema`.
    func storeConfiguration(schema: String) -> StoreConfiguration {
        .postgres(
            host: host, port: port, database: database, user: user, password: .file(passwordFile), tls: .disabled,
            schema: schema, connections: 2)
    }
}

/// Runs `count` operations with at most `window` in flight on one connection: postgres-nio
/// pipelines queries written before the previous answers arrive.
func pipelined<T: Sendable>(
    _ count: Int, window: Int = 64, _ operation: @escaping @Sendable (Int) async throws -> T
) async throws -> [T] {
    var results = [T?](repeating: nil, count: count)
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        var next = 0
        while next < min(window, count) {
            let index = next
            group.addTask { (index, try await operation(index)) }
            next += 1
        }
        while let (index, result) = try await group.next() {
            results[index] = result
            if next < count {
                let index = next
                group.addTask { (index, try await operation(index)) }
                next += 1
            }
        }
    }
    return results.map { $0! }
}
