import Foundation
import Logging
import PostgresNIO
import SharkORM
import SharkSQLite

extension HubLoad {
    /// Where the hub's state lives for a run of `--hub-load`: a SQLite file, which one
    /// `shark serve` process serves (a second is refused by design), or a fresh schema on the
    /// PostgreSQL server of `--hub-postgres`, which any number of processes share, since a hub
    /// process keeps nothing of its own between requests.
    enum Database: Sendable {
        case sqlite(path: String)
        case postgres(PostgresBenchServer, schema: String)

        /// The store the bench opens to create the space and the tokens before any hub runs.
        var configuration: StoreConfiguration {
            switch self {
            case .sqlite(let path): .sqlite(path: path)
            case .postgres(let server, let schema): server.storeConfiguration(schema: schema)
            }
        }

        /// How `shark serve` is told about this database: the file, or a URL without the
        /// password and the file that holds it (`--password-file`), so that the password never
        /// shows in the process list. Plaintext (`sslmode=disable`), as the bench's own
        /// connections to this server on the same machine are.
        var serveArguments: [String] {
            switch self {
            case .sqlite(let path): return [path]
            case .postgres(let server, let schema):
                let user = server.user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? server.user
                // An IPv6 address is bracketed in a URL.
                let host =
                    server.host.contains(":")
                    ? "[\(server.host)]"
                    : server.host.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed) ?? server.host
                let url =
                    "postgresql://\(user)@\(host):\(server.port)/\(server.database)?schema=\(schema)&sslmode=disable"
                return [url, "--password-file", server.passwordFile]
            }
        }

        /// How many processes may serve it at once.
        var allowsSeveralProcesses: Bool {
            if case .postgres = self { return true }
            return false
        }

        /// What the hub's database takes on disk: the SQLite file and its WAL, or the schema's
        /// tables with their indexes and TOAST (`pg_total_relation_size`), the PostgreSQL
        /// counterpart, so that the backlog table's "hub database" compares across the two.
        func bytes() async throws -> Int64 {
            switch self {
            case .sqlite(let path):
                var total: Int64 = 0
                for suffix in ["", "-wal"] {
                    let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix)
                    total += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
                }
                return total
            case .postgres(let server, let schema):
                let query: PostgresQuery = """
                    SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
                    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = \(schema) AND c.relkind = 'r'
                    """
                return try await Self.value(of: query, on: server, as: Int64.self) ?? 0
            }
        }

        /// The PostgreSQL server's version (`SHOW server_version`), for the report; nil for
        /// SQLite.
        func serverVersion() async throws -> String? {
            guard case .postgres(let server, _) = self else { return nil }
            let version = try await Self.value(of: "SHOW server_version", on: server, as: String.self)
            return version?.split(separator: " ").first.map(String.init)
        }

        /// Drops the PostgreSQL schema and everything in it, once the hub processes are
        /// stopped: each run starts from an empty one, and the server keeps nothing after it.
        /// Nothing for SQLite, whose file goes with the run's folder.
        func drop() async {
            guard case .postgres(let server, let schema) = self else { return }
            let logger = Logger(label: "shark-bench hub-load")
            guard let connection = try? await server.connect(logger: logger) else { return }
            _ = try? await connection.query("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE", logger: logger)
            try? await connection.close()
        }

        /// The first column of the first row of `query`, from a connection of its own: the
        /// bench's questions about the server are few, and a pool would outlive them.
        private static func value<T: PostgresDecodable>(
            of query: PostgresQuery, on server: PostgresBenchServer, as type: T.Type
        ) async throws -> T? {
            let logger = Logger(label: "shark-bench hub-load")
            let connection = try await server.connect(logger: logger)
            let rows: [PostgresRow]
            do {
                rows = try await connection.query(query, logger: logger).collect()
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
            return try rows.first?.decode(T.self)
        }
    }
}
