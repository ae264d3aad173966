import Foundation
import Logging
import PostgresNIO
@_spi(SharkDriver) import SharkORM
import Synchronization

/// One statement's text and parameters, with the values the parameters came from (for
/// tracing, which renders `Value`s).
struct PostgresStatement: Sendable {
    var sql: String
    var bindings: PostgresBindings
    var arguments: [Value]

    init(_ sql: String, bindings: PostgresBindings = PostgresBindings(), arguments: [Value] = []) {
        self.sql = sql
        self.bindings = bindings
        self.arguments = arguments
    }
}

/// The async side of a connection: runs statements on one `PostgresConnection`, reports them
/// to the tracer, and turns failures into SharkORM's errors. Only ever used inside
/// `SuspendingDriverExecutor.wait`, on the driver's own thread.
struct PostgresSession: Sendable {
    let connection: PostgresConnection
    let logger: Logger
    let tracer: Tracer
    /// Set when the server refuses a statement (which aborts an open transaction), as
    /// opposed to a failure on this side (a value that does not decode).
    var refusals = StatementRefusals()

    /// Every row of the statement's result.
    func rows(_ statement: PostgresStatement) async throws -> [PostgresRow] {
        try await run(statement) { query in
            let rows = try await connection.query(query, logger: logger).collect()
            return (rows, rows.count)
        }
    }

    /// What each statement read, or how it failed, in order: the statements are handed to the
    /// connection at once (at most `window` waiting), so each goes out as soon as the
    /// previous answer is in, from the event loop, without a hop back to this task between
    /// them. They reach the connection in order because the child tasks that send them run
    /// first in, first out on the driver's one executor thread (`SuspendingDriverExecutor`),
    /// and the server answers in order; inside a transaction, those after a failure fail too.
    func results(queuing statements: [PostgresStatement], window: Int = 64) async
        -> [Result<[PostgresRow], any Error>]
    {
        typealias Outcome = Result<[PostgresRow], any Error>
        // The results live inside the group's closure and come back as its value: a release
        // build trapped in the array's subscript when the closure wrote to an array of the
        // function instead (Swift 6.3, -O).
        return await withTaskGroup(of: (Int, Outcome).self, returning: [Outcome].self) { group in
            var results = [Outcome](repeating: .failure(CancellationError()), count: statements.count)
            var next = 0
            while next < min(window, statements.count) {
                let index = next
                next += 1
                group.addTask { (index, await self.outcome(of: statements[index])) }
            }
            while let (index, outcome) = await group.next() {
                results[index] = outcome
                guard next < statements.count else { continue }
                let queued = next
                next += 1
                group.addTask { (queued, await self.outcome(of: statements[queued])) }
            }
            return results
        }
    }

    /// What `statement` read, or how it failed.
    private func outcome(of statement: PostgresStatement) async -> Result<[PostgresRow], any Error> {
        do { return .success(try await rows(statement)) } catch { return .failure(error) }
    }

    /// Every row of the statement's result, and how many rows it inserted, updated or
    /// deleted (from the server's command tag; 0 for a query).
    func result(_ statement: PostgresStatement) async throws -> (rows: [PostgresRow], changes: Int) {
        try await run(statement) { query in
            let result = try await connection.query(query, logger: logger).get()
            let changes: Int
            switch result.metadata.command {
            case "INSERT", "UPDATE", "DELETE": changes = result.metadata.rows ?? 0
            // MERGE's tag ("MERGE 3") is one postgres-nio does not split.
            case let tag where tag.hasPrefix("MERGE "): changes = Int(tag.dropFirst(6)) ?? 0
            default: changes = 0
            }
            return ((result.rows, changes), max(result.rows.count, changes))
        }
    }

    /// Runs `statement` through `body` (which returns what it read and the number of rows to
    /// trace), reporting it to the tracer and turning a failure into SharkORM's error.
    private func run<Result>(
        _ statement: PostgresStatement, _ body: (PostgresQuery) async throws -> (Result, Int)
    ) async throws -> Result {
        try await traced(statement) {
            try await body(PostgresQuery(unsafeSQL: statement.sql, binds: statement.bindings))
        }
    }

    /// Streams `chunks` (rows in COPY's text format) into `table`'s `columns` with `COPY …
    /// FROM STDIN`, traced and failing as any statement does.
    func copy(into table: String, columns: [String], rows: Int, _ chunks: [ByteBuffer]) async throws {
        let sql =
            "COPY \(PostgresQueryCompiler.identifier(table)) ("
            + columns.map(PostgresQueryCompiler.identifier).joined(separator: ", ") + ") FROM STDIN"
        try await traced(PostgresStatement(sql)) {
            try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                for chunk in chunks { try await writer.write(chunk) }
            }
            return ((), rows)
        }
    }

    /// Runs `body` (which returns what it read and the number of rows to trace), reporting
    /// `statement` to the tracer and turning a failure into SharkORM's error.
    private func traced<Result>(
        _ statement: PostgresStatement, _ body: () async throws -> (Result, Int)
    ) async throws -> Result {
        // postgres-nio hands a query to a closed channel without failing it, and waits for an
        // answer that never comes: a connection already known to be lost fails here instead.
        // (One that is lost while a statement runs fails that statement, as it should.)
        if connection.isClosed {
            throw SharkError.driver(code: -1, message: "the connection to the server was lost", sql: statement.sql)
        }
        let start = tracer.isEnabled ? ContinuousClock.now : nil
        do {
            let (result, rows) = try await body()
            if let start {
                tracer.record(
                    statement: statement.sql, arguments: statement.arguments, duration: ContinuousClock.now - start,
                    rows: rows)
            }
            return result
        } catch {
            refusals.happened.store(true, ordering: .relaxed)
            let mapped = PostgresFailures.sharkError(error, sql: statement.sql)
            if let start {
                tracer.record(
                    statement: statement.sql, arguments: statement.arguments, duration: ContinuousClock.now - start,
                    rows: 0, error: mapped)
            }
            throw mapped
        }
    }

    /// The same connection, its statements not reported to the tracer: the driver's own
    /// bookkeeping around the app's statements (the log of commits other stores read).
    func untraced() -> PostgresSession {
        var untraced = PostgresSession(connection: connection, logger: logger, tracer: Tracer())
        untraced.refusals = refusals
        return untraced
    }

    func rows(_ sql: String, _ values: [WireValue?] = []) async throws -> [PostgresRow] {
        var bindings = PostgresBindings()
        for value in values {
            if let value { bindings.append(value) } else { bindings.appendNull() }
        }
        return try await rows(PostgresStatement(sql, bindings: bindings))
    }

    func execute(_ sql: String, _ values: [WireValue?] = []) async throws {
        _ = try await rows(sql, values)
    }

    /// Opens a connection with `configuration`; a failure says why (the server's message for
    /// a refused password, the TLS error for a certificate not trusted).
    static func connect(
        _ configuration: PostgresConnection.Configuration, logger: Logger, tracer: Tracer
    ) async throws -> PostgresSession {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: configuration, id: Int.random(in: 1...Int.max), logger: logger)
            return PostgresSession(connection: connection, logger: logger, tracer: tracer)
        } catch let failure as PSQLError {
            throw PostgresError.connectionFailed(reason: PostgresFailures.connectionProblem(failure))
        } catch {
            throw PostgresError.connectionFailed(reason: "\(error)")
        }
    }
}

/// A connection lent by the readers' pool for as long as a read runs. PostgresClient lends
/// connections only for the length of a closure; a read of the blocking seam spans several
/// calls, so a task waits inside that closure until the read gives the connection back.
final class ConnectionLease: @unchecked Sendable {
    let connection: PostgresConnection
    private let giveBack: CheckedContinuation<Void, Never>
    private let lock = NSLock()
    private var isReturned = false

    private init(_ connection: PostgresConnection, giveBack: CheckedContinuation<Void, Never>) {
        self.connection = connection
        self.giveBack = giveBack
    }

    /// Ends the lease: the pool may lend the connection again.
    func release() {
        lock.lock()
        defer { lock.unlock() }
        guard !isReturned else { return }
        isReturned = true
        giveBack.resume()
    }

    /// Borrows a connection from `client`, waiting for one when all are lent. The waiting
    /// task runs on `executor`: the store's callers may occupy every thread of Swift's
    /// cooperative pool while they wait for this very lease.
    static func borrow(from client: PostgresClient, on executor: SuspendingDriverExecutor) async throws
        -> ConnectionLease
    {
        let handedOver = HandOver()
        return try await withCheckedThrowingContinuation { (lent: CheckedContinuation<ConnectionLease, any Error>) in
            Task(executorPreference: executor) {
                do {
                    try await client.withConnection { connection in
                        await withCheckedContinuation { (giveBack: CheckedContinuation<Void, Never>) in
                            handedOver.done.store(true, ordering: .sequentiallyConsistent)
                            lent.resume(returning: ConnectionLease(connection, giveBack: giveBack))
                        }
                    }
                } catch {
                    if !handedOver.done.load(ordering: .sequentiallyConsistent) { lent.resume(throwing: error) }
                }
            }
        }
    }
}

/// Whether a lease reached its borrower (after which a failure of the pool is not theirs).
private final class HandOver: Sendable {
    let done = Atomic<Bool>(false)
}

/// Whether the server refused a statement since the flag was last cleared.
final class StatementRefusals: Sendable {
    let happened = Atomic<Bool>(false)
}
