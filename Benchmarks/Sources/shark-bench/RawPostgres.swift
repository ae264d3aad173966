import Foundation
import Logging
import NIOCore
import PostgresNIO
@_spi(SharkDriver) import SharkORM

/// The PostgreSQL baseline: the workloads written by hand over postgres-nio, at its best for
/// each: one connection, named prepared statements (prepared once per connection), `COPY
/// FROM` for W1, and every query of a workload handed to the connection at once, so that
/// each goes out as soon as the previous answer is in, from the event loop, without a hop
/// back to the caller. (postgres-nio 1.33 queues queries on a connection rather than
/// pipelining them on the wire: one round trip each.) Its async calls run on a
/// `SuspendingDriverExecutor`, one wait per workload, as SharkPostgres's run on its own.
final class RawPostgres: Backend {
    let server: PostgresBenchServer
    let schema = PostgresBenchServer.freshSchema()
    let executor = SuspendingDriverExecutor(name: "raw postgres-nio")
    let logger = Logger(label: "shark-bench raw postgres-nio")
    let connection: PostgresConnection
    private var fetched: [PlainRow10] = []

    /// The table as SharkPostgres defines it: the same column types (a Date is a
    /// `double precision`, text compares byte by byte).
    static let table = """
        CREATE TABLE row10 (id bigint PRIMARY KEY, a bigint NOT NULL, b bigint NOT NULL,
            c double precision NOT NULL, d double precision NOT NULL, e text COLLATE "C" NOT NULL,
            f text COLLATE "C" NOT NULL, g boolean NOT NULL, h bigint NOT NULL, i text COLLATE "C",
            j double precision NOT NULL)
        """

    init(server: PostgresBenchServer) throws {
        self.server = server
        let schema = self.schema
        let logger = self.logger
        do {
            connection = try executor.wait {
                let connection = try await server.connect(schema: schema, logger: logger)
                do {
                    try await connection.query(PostgresQuery(unsafeSQL: Self.table), logger: logger)
                    try await connection.query("CREATE INDEX row10_a ON row10 (a)", logger: logger)
                } catch {
                    try? await connection.close()
                    throw error
                }
                return connection
            }
        } catch {
            server.dropSchema(schema, on: executor)
            executor.shutdown()
            throw error
        }
    }

    /// Runs `body` with the connection, on the executor's thread, blocking until it is done.
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) throws -> T {
        let connection = self.connection
        let logger = self.logger
        return try executor.wait { try await body(connection, logger) }
    }

    func insert(_ rows: [InputRow]) throws {
        try run { connection, logger in
            try await connection.query("BEGIN", logger: logger)
            try await connection.copyFrom(table: "row10", logger: logger) { writer in
                var buffer = ByteBuffer()
                buffer.reserveCapacity(1 << 16)
                for (n, row) in rows.enumerated() {
                    Self.appendCopyLine(of: row, key: Int64(n + 1), to: &buffer)
                    if buffer.readableBytes >= 1 << 16 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
            try await connection.query("COMMIT", logger: logger)
        }
    }

    /// One row in COPY's text format: tab-separated, `\N` for NULL. The benchmark's strings
    /// hold no tab, newline or backslash, so none needs escaping.
    private static func appendCopyLine(of row: InputRow, key: Int64, to buffer: inout ByteBuffer) {
        buffer.writeString(
            "\(key)\t\(row.a)\t\(row.b)\t\(row.c)\t\(row.d)\t\(row.e)\t\(row.f)\t\(row.g ? "t" : "f")\t\(row.h)\t"
                + (row.i ?? "\\N") + "\t\(row.j.timeIntervalSinceReferenceDate)\n")
    }

    static let columns = "id, a, b, c, d, e, f, g, h, i, j"
    typealias Columns = (Int64, Int, Int, Double, Double, String, String, Bool, Int64, String?, Double)

    static func object(_ values: Columns) -> PlainRow10 {
        let object = PlainRow10()
        (object.id, object.a, object.b, object.c, object.d, object.e, object.f, object.g, object.h, object.i) = (
            values.0, values.1, values.2, values.3, values.4, values.5, values.6, values.7, values.8, values.9
        )
        object.j = Date(timeIntervalSinceReferenceDate: values.10)
        return object
    }

    func fetchAll() throws -> Int {
        // Objects are built on this thread, as an app that fetched them would use them here.
        let rows = try run { connection, logger in
            try await connection.query("SELECT \(unescaped: Self.columns) FROM row10", logger: logger).collect()
                .map { try $0.decode(Columns.self) }
        }
        fetched = rows.map(Self.object)
        return fetched.count
    }

    struct Range: BigintStatement {
        static let sql = "SELECT \(RawPostgres.columns) FROM row10 WHERE a BETWEEN $1 AND $2"
        let parameters: [Int64]
        func decodeRow(_ row: PostgresRow) throws -> Columns { try row.decode(Columns.self) }
    }

    func ranges(_ starts: [Int], width: Int) throws -> Int {
        let pages = try run { connection, logger in
            try await pipelined(starts.count) { index in
                try await connection.rows(
                    Range(parameters: [Int64(starts[index]), Int64(starts[index] + width - 1)]), logger: logger)
            }
        }
        return pages.reduce(0) { $0 + $1.map(Self.object).count }
    }

    struct Update: BigintStatement {
        static let sql = "UPDATE row10 SET b = $1 WHERE id = $2"
        let parameters: [Int64]
        func decodeRow(_ row: PostgresRow) throws {}
    }

    func updateAll() throws {
        for object in fetched { object.b = InputRow.updatedB(a: object.a) }
        let changes = fetched.map { Update(parameters: [Int64($0.b), $0.id]) }
        try run { connection, logger in try await connection.inTransaction(changes, logger: logger) }
    }

    struct Lookup: BigintStatement {
        static let sql = "SELECT \(RawPostgres.columns) FROM row10 WHERE id = $1"
        let parameters: [Int64]
        func decodeRow(_ row: PostgresRow) throws -> Columns { try row.decode(Columns.self) }
    }

    func lookups(_ keys: [Int64]) throws -> Int {
        let found = try run { connection, logger in
            try await pipelined(keys.count) {
                try await connection.rows(Lookup(parameters: [keys[$0]]), logger: logger)
            }
        }
        return found.reduce(0) { $0 + $1.map(Self.object).count }
    }

    struct Equal: BigintStatement {
        static let sql = "SELECT \(RawPostgres.columns) FROM row10 WHERE a = $1"
        let parameters: [Int64]
        func decodeRow(_ row: PostgresRow) throws -> Columns { try row.decode(Columns.self) }
    }

    func queries(_ values: [Int]) throws -> Int {
        let found = try run { connection, logger in
            try await pipelined(values.count) {
                try await connection.rows(Equal(parameters: [Int64(values[$0])]), logger: logger)
            }
        }
        return found.reduce(0) { $0 + $1.map(Self.object).count }
    }

    struct Sum: BigintStatement {
        static let sql = "SELECT sum(h)::bigint FROM row10"
        let parameters: [Int64] = []
        func decodeRow(_ row: PostgresRow) throws -> Int64? { try row.decode(Int64?.self) }
    }

    func sumOfH() throws -> Int64 {
        try run { connection, logger in try await connection.rows(Sum(), logger: logger).first ?? nil } ?? 0
    }

    struct Delete: BigintStatement {
        static let sql = "DELETE FROM row10 WHERE id = $1"
        let parameters: [Int64]
        func decodeRow(_ row: PostgresRow) throws {}
    }

    func removeEveryOther() throws -> Int {
        let doomed = stride(from: 0, to: fetched.count, by: 2).map { Delete(parameters: [fetched[$0].id]) }
        try run { connection, logger in try await connection.inTransaction(doomed, logger: logger) }
        return doomed.count
    }

    func close() {
        let connection = self.connection
        _ = try? executor.wait { try await connection.close() }
        server.dropSchema(schema, on: executor)
        executor.shutdown()
    }
}

/// A prepared statement of the raw baseline: its parameters are bigints, in order.
protocol BigintStatement: PostgresPreparedStatement {
    var parameters: [Int64] { get }
}

extension BigintStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings()
        for parameter in parameters { bindings.append(parameter) }
        return bindings
    }
}

extension PostgresConnection {
    /// The rows `statement` reads, decoded.
    func rows<Statement: BigintStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        try await execute(statement, logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// Runs `statements` (writes) in one transaction, handed to the connection at once.
    func inTransaction<Statement: BigintStatement>(_ statements: [Statement], logger: Logger) async throws
    where Statement.Row == () {
        try await query("BEGIN", logger: logger)
        _ = try await pipelined(statements.count) { index in
            for try await _ in try await self.execute(statements[index], logger: logger) {}
        }
        try await query("COMMIT", logger: logger)
    }
}
