import Foundation
import Logging
import PostgresNIO
@_spi(SharkDriver) import SharkORM
import Synchronization

/// What the driver's connections share: the thread their awaits run on, the schemas they
/// compile queries against, the settings to reconnect with.
final class PostgresContext: @unchecked Sendable {
    let executor = SuspendingDriverExecutor(name: "SharkPostgres")
    let settings: PostgresSettings
    let tracer: Tracer
    let logger: Logger
    private let lock = NSLock()
    private var schemas: [String: EntitySchema] = [:]
    /// Whether this store's write transactions take turns with those of the other stores
    /// that asked the same (``PostgresWriteTurn``): set once, by sync.
    let takesWriteTurns = Atomic<Bool>(false)
    /// The schema's name among every server's: the key of this store's turn in this process.
    var turnName: String {
        "\(settings.hostDescription)/\(settings.database)/\(settings.schema)"
    }

    init(settings: PostgresSettings, tracer: Tracer) {
        self.settings = settings
        self.tracer = tracer
        var logger = Logger(label: "SharkPostgres")
        logger.logLevel = .critical
        self.logger = logger
    }

    func remember(_ schema: EntitySchema) {
        lock.withLock { schemas[schema.name] = schema }
    }

    func schema(named name: String) -> EntitySchema? {
        lock.withLock { schemas[name] }
    }

    /// The entities this store has met so far.
    var knownEntityNames: [String] {
        lock.withLock { Array(schemas.keys) }
    }
}

/// A ``DriverConnection`` over one PostgreSQL connection: the writer's own, or one a read
/// borrowed from the pool. Each call compiles its intent to SQL on the caller's thread, hands
/// the round trip to the driver's executor (``SuspendingDriverExecutor``) and blocks until the
/// answer is back; row callbacks run on the caller's thread.
final class PostgresDriverConnection: DriverConnection {
    let context: PostgresContext
    private var session: PostgresSession
    /// How to connect again (the writer's, after its connection was lost between
    /// transactions); nil for a borrowed reader.
    private let reconnect: (@Sendable () async throws -> PostgresSession)?
    private(set) var inTransaction = false
    /// Whether a statement failed in the open transaction since its start or the last
    /// rollback to a savepoint: PostgreSQL then refuses every statement until a rollback, and
    /// turns COMMIT into a ROLLBACK without an error, which must not pass for a commit.
    private var isAborted = false
    /// Whether the open transaction holds the write turn (``PostgresWriteTurn``).
    private var holdsTurn = false

    init(
        session: PostgresSession, context: PostgresContext,
        reconnect: (@Sendable () async throws -> PostgresSession)? = nil
    ) {
        self.session = session
        self.context = context
        self.reconnect = reconnect
    }

    /// Runs `work` on the executor's thread with this connection's session.
    func perform<T: Sendable>(_ work: @escaping @Sendable (PostgresSession) async throws -> T) throws -> T {
        if session.connection.isClosed, !inTransaction, let reconnect {
            session = try context.executor.wait { try await reconnect() }
        }
        let session = self.session
        session.refusals.happened.store(false, ordering: .relaxed)
        do {
            return try context.executor.wait { try await work(session) }
        } catch {
            // A statement the server refused aborts the transaction; a value that did not
            // decode here does not.
            if inTransaction && session.refusals.happened.load(ordering: .relaxed) { isAborted = true }
            throw error
        }
    }

    /// Drops `schema` and everything in it (tests' throw-away schemas).
    func dropSchema(_ schema: String) {
        let sql = "DROP SCHEMA IF EXISTS " + PostgresQueryCompiler.identifier(schema) + " CASCADE"
        _ = try? perform { session in
            try await session.execute(sql)
        }
    }

    func close() {
        let connection = session.connection
        _ = try? context.executor.wait { try await connection.close() }
    }

    // MARK: Schemas

    /// The schema of `entity`, from what this store applied or the record.
    private func schema(named entity: String) throws -> EntitySchema {
        if let schema = context.schema(named: entity) { return schema }
        let recorded = try perform { session in
            try await PostgresSchemaMigrator(session: session).recordedSchema(of: entity)
        }
        guard let recorded else {
            throw SharkError.invalidQuery(.init(.unknownColumn, "no entity \(entity) is stored"))
        }
        context.remember(recorded)
        return recorded
    }

    private func compiler() -> PostgresQueryCompiler {
        PostgresQueryCompiler { [unowned self] name in try self.schema(named: name) }
    }

    func apply(_ schema: EntitySchema) throws {
        let outside = !inTransaction
        try perform { session in
            let migrator = PostgresSchemaMigrator(session: session)
            // Its own transaction, as SQLite's migration is its own savepoint: not one of the
            // app's (whose BEGIN a trace counts).
            try await session.execute(outside ? "START TRANSACTION" : "SAVEPOINT shark_migration")
            do {
                _ = try await migrator.apply(schema)
                try await session.execute(outside ? "COMMIT" : "RELEASE shark_migration")
            } catch {
                if outside {
                    try? await session.execute("ROLLBACK")
                } else {
                    try? await session.execute("ROLLBACK TO shark_migration")
                    try? await session.execute("RELEASE shark_migration")
                    // Inside the app's transaction the migration reads the snapshot the
                    // transaction began with: another process's migration since then is
                    // invisible to it, and creating the same table again collides. A race
                    // lost: the transaction runs again on a fresh snapshot (RetryableConflict).
                    if Self.isCatalogCollision(error) {
                        throw PostgresError.transactionConflict(
                            sqlState: "42P07", message: "another process changed the schema of \(schema.name) meanwhile"
                        )
                    }
                }
                throw error
            }
        }
        context.remember(schema)
    }

    /// Changes whenever any process applies a schema: the count of records and the time of
    /// the latest (every apply writes it).
    func schemaGeneration() throws -> Int64? {
        try perform { session in
            guard try await PostgresSchemaMigrator(session: session).tableExists(PostgresSchemaMigrator.recordTable)
            else { return 0 }
            let rows = try await session.rows(
                "SELECT count(*), COALESCE(max(applied_at), 0) FROM "
                    + PostgresQueryCompiler.identifier(PostgresSchemaMigrator.recordTable))
            guard let row = rows.first else { return 0 }
            let cells = Array(row)
            let count = try PostgresValues.value(of: cells[0]).coercedToInt64()
            let latest = try PostgresValues.value(of: cells[1]).coercedToDouble()
            return count &* 1_000_003 ^ Int64(bitPattern: latest.bitPattern)
        }
    }

    /// A table, index or catalog row that exists already: what a migration meets when
    /// another process made the same one since its snapshot.
    private static func isCatalogCollision(_ error: any Error) -> Bool {
        switch error {
        case SharkError.uniqueConstraint: return true
        case SharkError.driver(_, let message, _):
            return message.hasPrefix("[42P07]") || message.hasPrefix("[42710]") || message.hasPrefix("[42701]")
        default: return false
        }
    }

    func recordedSchemas() throws -> [EntitySchema] {
        try perform { session in try await PostgresSchemaMigrator(session: session).recordedSchemas() }
    }

    // MARK: Transactions

    func beginTransaction() throws {
        let takesTurn = context.takesWriteTurns.load(ordering: .relaxed)
        if takesTurn { try PostgresWriteTurn.checkNotHeld(context.turnName) }
        try perform { session in
            try await session.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            guard takesTurn else { return }
            do {
                // Before any query, which would take the snapshot (PostgresWriteTurn).
                try await session.execute(PostgresWriteTurn.take)
                try await session.execute(PostgresWriteTurn.limitIdling)
            } catch {
                try? await session.execute("ROLLBACK")
                throw error
            }
        }
        if takesTurn {
            PostgresWriteTurn.noteTaken(context.turnName)
            holdsTurn = true
        }
        inTransaction = true
        isAborted = false
    }

    func commitTransaction() throws {
        defer {
            inTransaction = false
            isAborted = false
            releaseTurn()
        }
        if isAborted {
            // The app went on after a failed statement (it caught the error): PostgreSQL
            // would roll back and call it a commit. Say it did not commit.
            try? perform { session in try await session.execute("ROLLBACK") }
            throw SharkError.driver(
                code: PostgresError.code(ofSQLState: "25P02"),
                message: "[25P02] a statement of the transaction failed, so PostgreSQL rolled it all back; "
                    + "nothing was committed (catch failures inside tx.transaction { … } to go on without them)",
                sql: "COMMIT")
        }
        do {
            try perform { session in try await session.execute("COMMIT") }
        } catch SharkError.driver(let code, let message, _) where code == -1 {
            // No answer from the server (not an error it sent): the commit may have happened.
            throw PostgresError.commitOutcomeUnknown(reason: message)
        }
    }

    func rollbackTransaction() throws {
        defer {
            inTransaction = false
            isAborted = false
            releaseTurn()
        }
        try perform { session in try await session.execute("ROLLBACK") }
    }

    /// Notes that this connection's transaction no longer holds the write turn.
    private func releaseTurn() {
        guard holdsTurn else { return }
        holdsTurn = false
        PostgresWriteTurn.noteReleased(context.turnName)
    }

    func createSavepoint(_ name: String) throws {
        try perform { session in try await session.execute("SAVEPOINT " + PostgresQueryCompiler.identifier(name)) }
    }

    func releaseSavepoint(_ name: String) throws {
        try perform { session in try await session.execute("RELEASE " + PostgresQueryCompiler.identifier(name)) }
    }

    func rollbackToSavepoint(_ name: String) throws {
        try perform { session in
            try await session.execute("ROLLBACK TO " + PostgresQueryCompiler.identifier(name))
        }
        // Back before the failure: the transaction goes on (a savepoint is how an app
        // catches a failed write and continues, on every driver).
        isAborted = false
    }

    func beginRead() throws {
        try perform { session in try await session.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }
        inTransaction = true
    }

    func endRead() throws {
        defer {
            inTransaction = false
            isAborted = false
        }
        try perform { session in try await session.execute("COMMIT") }
    }

    // MARK: Writes

    /// The values a row source holds, one per column of `schema`.
    private func values<Source: RowSource>(of source: Source, schema: EntitySchema) throws -> [Value] {
        let collector = ValueCollector(count: schema.columns.count)
        try source._sharkWriteColumns(from: 0, to: collector, offset: 0)
        return collector.values
    }

    /// `INSERT INTO t (…) VALUES (…), (…) [RETURNING key]` for `rows`, the key column left
    /// to the engine when `includingKey` is false.
    private func insertStatement(_ rows: [[Value]], schema: EntitySchema, includingKey: Bool) throws
        -> PostgresStatement
    {
        let first = includingKey ? 0 : 1
        let names = schema.columns[first...].map { PostgresQueryCompiler.identifier($0.name) }
        var statement = PostgresStatement("")
        var tuples: [String] = []
        tuples.reserveCapacity(rows.count)
        for row in rows {
            var parameters: [String] = []
            for position in first..<schema.columns.count {
                let column = schema.columns[position]
                let type = PostgresType(column)
                if let wire = try PostgresValues.wire(row[position], as: type, column: schema.name + "." + column.name)
                {
                    statement.bindings.append(wire)
                    statement.arguments.append(row[position])
                    parameters.append("$\(statement.bindings.count)")
                } else {
                    parameters.append("NULL")
                }
            }
            tuples.append("(" + parameters.joined(separator: ", ") + ")")
        }
        let table = PostgresQueryCompiler.identifier(schema.name)
        let key = PostgresQueryCompiler.identifier(schema.key.name)
        if names.isEmpty {
            // A model with nothing but its engine-assigned key: one row of defaults.
            statement.sql = "INSERT INTO \(table) DEFAULT VALUES RETURNING \(key)"
            return statement
        }
        var sql = "INSERT INTO \(table) (\(names.joined(separator: ", "))) "
        if includingKey && schema.keyKind == .autoIncrement { sql += "OVERRIDING SYSTEM VALUE " }
        sql += "VALUES " + tuples.joined(separator: ", ") + " RETURNING " + key
        if includingKey && schema.keyKind == .autoIncrement {
            // Keys given here must not come back from the engine's sequence later: move it
            // past the largest (SQLite's rowid goes on after the largest key too).
            let tableText = table.replacingOccurrences(of: "'", with: "''")
            let keyText = schema.key.name.replacingOccurrences(of: "'", with: "''")
            sql =
                "WITH shark_inserted AS (" + sql + ") SELECT setval(shark_sequence.id, shark_keys.largest) "
                + "FROM (SELECT max(" + key + ") AS largest FROM shark_inserted) AS shark_keys, "
                + "(SELECT pg_get_serial_sequence('" + tableText + "', '" + keyText + "')::regclass AS id) "
                + "AS shark_sequence WHERE shark_keys.largest > COALESCE(pg_sequence_last_value(shark_sequence.id), 0)"
        }
        statement.sql = sql
        return statement
    }

    func insert<Source: RowSource>(_ source: Source, schema: EntitySchema, includingKey: Bool) throws -> Int64? {
        let statement = try insertStatement(
            [try values(of: source, schema: schema)], schema: schema, includingKey: includingKey)
        let rows = try perform { session in
            try await session.rows(statement).map { try PostgresValues.value(of: $0.first!) }
        }
        guard !includingKey else { return nil }
        guard case .integer(let key)? = rows.first else {
            throw SharkError.driver(code: -1, message: "the insert returned no key", sql: statement.sql)
        }
        return key
    }

    func insert<Source: RowSource>(_ sources: [Source], schema: EntitySchema, includingKey: Bool) throws -> [Int64] {
        guard !sources.isEmpty else { return [] }
        let allRows = try sources.map { try values(of: $0, schema: schema) }
        if allRows.count >= PostgresCopyIn.minimumRows, includingKey || schema.keyKind == .autoIncrement,
            PostgresCopyIn.canCopy(schema), let keys = try copy(allRows, schema: schema, includingKey: includingKey)
        {
            return keys
        }
        // At most 65,535 parameters a statement: batches well below it.
        let perStatement = max(1, min(1_000, 30_000 / max(1, schema.columns.count)))
        var batches: [PostgresStatement] = []
        var start = 0
        while start < sources.count {
            let end = min(start + perStatement, sources.count)
            let rows = Array(allRows[start..<end])
            if !includingKey && schema.columns.count == 1 {
                // DEFAULT VALUES makes one row a statement.
                for row in rows { batches.append(try insertStatement([row], schema: schema, includingKey: false)) }
            } else {
                batches.append(try insertStatement(rows, schema: schema, includingKey: includingKey))
            }
            start = end
        }
        let statements = batches
        let keys = try perform { session in
            var keys: [Int64] = []
            for statement in statements {
                for row in try await session.rows(statement) {
                    if case .integer(let key) = try PostgresValues.value(of: row.first!) { keys.append(key) }
                }
            }
            return keys
        }
        return includingKey ? [] : keys
    }

    /// Inserts `rows` with COPY (see ``PostgresCopyIn``); returns the keys the sequence gave
    /// them (none when they came with their own), or nil, having written nothing, when the
    /// table must be written by INSERT (row-level security or a rule on it, or a sequence this
    /// role may not draw from).
    private func copy(_ rows: [[Value]], schema: EntitySchema, includingKey: Bool) throws -> [Int64]? {
        var rows = rows
        let takesKeys = !includingKey && schema.keyKind == .autoIncrement
        let permissionStatement = PostgresCopyIn.permissionStatement(schema: schema)
        let count = rows.count
        // The lookups are the driver's bookkeeping, like the savepoints around a bulk update:
        // not traced.
        let keys: [Int64]? = try perform { session in
            let bookkeeping = session.untraced()
            guard let row = try await bookkeeping.rows(permissionStatement).first else { return nil }
            let permission = try PostgresCopyIn.Permission(row)
            guard permission.mayCopy else { return nil }
            guard takesKeys else { return [] }
            guard permission.mayTakeKeys, let sequence = permission.sequence else { return nil }
            let keyStatement = PostgresCopyIn.keyStatement(count: count, sequence: sequence)
            return try await bookkeeping.rows(keyStatement).map { row in
                guard case .integer(let key) = try PostgresValues.value(of: row.first!) else {
                    throw SharkError.driver(code: -1, message: "the sequence gave no key", sql: keyStatement.sql)
                }
                return key
            }
        }
        guard let keys else { return nil }
        if takesKeys {
            for position in rows.indices { rows[position][0] = .integer(keys[position]) }
        }
        let chunks = try PostgresCopyIn.data(rows, schema: schema)
        let table = schema.name
        let columns = schema.columns.map(\.name)
        // The largest key as written (a whole real is written as an integer too).
        var largest: Int64?
        if includingKey && schema.keyKind == .autoIncrement {
            for row in rows {
                if case .bigint(let key)? = try PostgresValues.wire(row[0], as: .bigint, column: schema.key.name)?
                    .payload
                {
                    largest = max(largest ?? key, key)
                }
            }
        }
        let sequenceStatement = largest.map { PostgresCopyIn.sequenceStatement(movingPast: $0, schema: schema) }
        try perform { session in
            try await session.copy(into: table, columns: columns, rows: count, chunks)
            if let sequenceStatement { _ = try await session.untraced().rows(sequenceStatement) }
        }
        return keys
    }

    func update<Source: RowSource>(_ source: Source, key: Value, columns: ColumnSet, schema: EntitySchema) throws
        -> Bool
    {
        let row = try values(of: source, schema: schema)
        let statement = try updateStatement(row, key: key, columns: columns, schema: schema)
        return try perform { session in !(try await session.rows(statement)).isEmpty }
    }

    private func updateStatement(_ row: [Value], key: Value, columns: ColumnSet, schema: EntitySchema) throws
        -> PostgresStatement
    {
        var statement = PostgresStatement("")
        var assignments: [String] = []
        for column in columns where column != 0 {
            let definition = schema.columns[Int(column)]
            let value = row[Int(column)]
            let name = PostgresQueryCompiler.identifier(definition.name)
            if let wire = try PostgresValues.wire(
                value, as: PostgresType(definition), column: schema.name + "." + definition.name)
            {
                statement.bindings.append(wire)
                statement.arguments.append(value)
                assignments.append(name + " = $\(statement.bindings.count)")
            } else {
                assignments.append(name + " = NULL")
            }
        }
        let table = PostgresQueryCompiler.identifier(schema.name)
        let keyName = PostgresQueryCompiler.identifier(schema.key.name)
        guard let wireKey = try PostgresValues.wire(key, as: PostgresType(schema.key), column: schema.key.name) else {
            statement.sql = "SELECT 1 WHERE FALSE"
            return statement
        }
        statement.bindings.append(wireKey)
        statement.arguments.append(key)
        let keyParameter = "$\(statement.bindings.count)"
        statement.sql =
            assignments.isEmpty
            ? "SELECT 1 FROM \(table) WHERE \(keyName) = \(keyParameter)"
            : "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(keyName) = \(keyParameter) RETURNING 1"
        return statement
    }

    func update<Source: RowSource>(_ sources: [Source], keys: [Value], columns: ColumnSet, schema: EntitySchema)
        throws -> Int?
    {
        let statements = try sources.indices.map { position in
            try updateStatement(
                try values(of: sources[position], schema: schema), key: keys[position], columns: columns, schema: schema
            )
        }
        // Many rows in a transaction: the statements are queued on the connection at once (a
        // round trip each, but no hop back to this thread between them), in a savepoint so
        // that a missing row still leaves nothing after it written.
        guard inTransaction, statements.count >= Self.queuedUpdates else {
            return try perform { session in
                for (position, statement) in statements.enumerated() where try await session.rows(statement).isEmpty {
                    return position
                }
                return nil
            }
        }
        return try perform { session in
            let bookkeeping = session.untraced()
            try await bookkeeping.execute("SAVEPOINT shark_bulk_update")
            // The first statement that did not write its row decides, in order.
            for (position, result) in await session.results(queuing: statements).enumerated() {
                guard try !result.get().isEmpty else {
                    // A missing row: rows before it stay written, none after it (those after
                    // it ran, and one may have failed: the savepoint undoes them all).
                    try await bookkeeping.execute("ROLLBACK TO SAVEPOINT shark_bulk_update")
                    session.refusals.happened.store(false, ordering: .relaxed)
                    for redone in await session.results(queuing: Array(statements[..<position])) {
                        _ = try redone.get()
                    }
                    try await bookkeeping.execute("RELEASE SAVEPOINT shark_bulk_update")
                    return position
                }
            }
            try await bookkeeping.execute("RELEASE SAVEPOINT shark_bulk_update")
            return nil
        }
    }

    /// From this many rows, a bulk update queues its statements (below, the savepoint's two
    /// round trips cost more than queuing saves).
    static let queuedUpdates = 16

    func delete(key: Value, schema: EntitySchema) throws -> Bool {
        guard let wireKey = try PostgresValues.wire(key, as: PostgresType(schema.key), column: schema.key.name) else {
            return false
        }
        let statement = PostgresStatement(
            "DELETE FROM \(PostgresQueryCompiler.identifier(schema.name)) WHERE "
                + "\(PostgresQueryCompiler.identifier(schema.key.name)) = $1 RETURNING 1",
            bindings: {
                var b = PostgresBindings(); b.append(wireKey); return b
            }(), arguments: [key])
        return try perform { session in !(try await session.rows(statement)).isEmpty }
    }

    /// Computes the assignments' values on the server, checks each against its column with
    /// the core's rule (`ColumnSchema.storedValue(_:computed:)`, what the other drivers call),
    /// then writes them: a value that does not fit fails the call before anything is written.
    func updateAll(keys: [Value], setting assignments: [ColumnAssignment], schema: EntitySchema) throws {
        guard !keys.isEmpty, !assignments.isEmpty else { return }
        var query = EntityQuery(entity: schema.name)
        query.predicate = .isIn(.column(schema.key.name), keys)
        var compiler = self.compiler()
        compiler.enter(schema)
        var expressions: [String] = []
        for assignment in assignments {
            expressions.append(try compiler.expression(assignment.value).sql)
        }
        let key = PostgresQueryCompiler.identifier(schema.key.name)
        let select = try compiler.select(
            query, schema: schema, columns: ([key] + expressions).joined(separator: ", "))
        let bindings = compiler.bindings
        let arguments = compiler.arguments
        let computed = try perform { session in
            try await session.rows(PostgresStatement(select + " FOR UPDATE", bindings: bindings, arguments: arguments))
                .map { row in
                    try row.map { try PostgresValues.value(of: $0) }
                }
        }
        var updates: [PostgresStatement] = []
        for row in computed {
            var source = ValueRow(count: schema.columns.count)
            var columns = ColumnSet()
            for (position, assignment) in assignments.enumerated() {
                let column = schema.columns[assignment.column]
                var value = row[position + 1]
                if case .real(let real) = value, real.isNaN { value = .null }
                source.values[assignment.column] = try column.storedValue(value, computed: true)
                columns.insert(Int32(assignment.column))
            }
            updates.append(try updateStatement(source.values, key: row[0], columns: columns, schema: schema))
        }
        let statements = updates
        try perform { session in
            for statement in statements { _ = try await session.rows(statement) }
        }
    }

    // MARK: Reads

    func read(_ request: ReadRequest, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws {
        var compiler = self.compiler()
        let sql: String
        switch request {
        case .key(let key):
            let columns = PostgresQueryCompiler.columnList(schema)
            guard let wire = try? PostgresValues.wire(key, as: PostgresType(schema.key), column: schema.key.name)
            else { return }
            sql =
                "SELECT \(columns) FROM \(PostgresQueryCompiler.identifier(schema.name)) WHERE "
                + "\(PostgresQueryCompiler.identifier(schema.key.name)) = \(compiler.bind(wire, recorded: key))"
        case .query(let query):
            sql = try compiler.select(
                query, schema: schema, columns: PostgresQueryCompiler.columnList(schema, only: query.columns))
        }
        let statement = PostgresStatement(sql, bindings: compiler.bindings, arguments: compiler.arguments)
        let logicalTypes = schema.columns.map(\.logicalType)
        let rows = try perform { session in
            try await session.rows(statement).map { row in
                var values: [Value] = []
                values.reserveCapacity(logicalTypes.count)
                for (position, cell) in row.enumerated() {
                    values.append(try PostgresValues.value(of: cell, logicalType: logicalTypes[position]))
                }
                return values
            }
        }
        let reader = ValueRowReader()
        reader.columnNames = (schema.name, schema.columns.map(\.name))
        for row in rows {
            reader.values = row
            try body(reader)
        }
    }

    func count(_ query: EntityQuery, schema: EntitySchema) throws -> Int {
        var compiler = self.compiler()
        let sql = try compiler.count(query, schema: schema)
        let statement = PostgresStatement(sql, bindings: compiler.bindings, arguments: compiler.arguments)
        let value = try perform { session in
            try await session.rows(statement).first.map { try PostgresValues.value(of: $0.first!) }
        }
        return Int(value?.coercedToInt64() ?? 0)
    }

    func aggregate(
        _ function: AggregateFunction, of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema
    ) throws -> Value {
        var compiler = self.compiler()
        let (select, type) = try compiler.values(of: expression, query, schema: schema)
        let bindings = compiler.bindings
        switch function {
        case .sum where type == .bigint || type == .boolean:
            // PostgreSQL sums bigints into a numeric, exactly: outside 64 bits is an error here.
            let statement = PostgresStatement(
                Self.wrap(select, "SELECT sum(shark_value" + (type == .boolean ? "::int" : "") + ")::text FROM ("),
                bindings: bindings)
            let value = try perform { session in
                try await session.rows(statement).first.map { try PostgresValues.value(of: $0.first!) }
            }
            guard case .text(let text)? = value else { return .null }
            guard let sum = Int64(text) else {
                throw SharkError.invalidValue(
                    .init(.integerOverflow, "integer overflow: the sum \(text) does not fit in 64 bits"))
            }
            return .integer(sum)
        case .sum, .average:
            // Sums and averages of reals and decimals are the core's exact ones, over the values.
            var sum = ExactSum()
            for value in try values(of: expression, query, schema: schema) { try sum.add(value) }
            return function == .sum ? try sum.sum() : try sum.average()
        case .minimum, .maximum:
            let statement = PostgresStatement(
                Self.wrap(select, "SELECT shark_value FROM (")
                    + " WHERE shark_value IS NOT NULL ORDER BY shark_value "
                    + (function == .minimum ? "ASC" : "DESC") + " LIMIT 1",
                bindings: bindings)
            return try perform { session in
                try await session.rows(statement).first.map { try Self.expressionValue(of: $0.first!) } ?? .null
            }
        }
    }

    /// `prefix` + the select + `) AS shark_values`, a `WITH` clause of the select kept first.
    private static func wrap(_ select: String, _ prefix: String) -> String {
        if select.hasPrefix("WITH "), let range = select.range(of: ") SELECT ") {
            let with = select[..<range.lowerBound] + ") "
            let rest = select[select.index(range.upperBound, offsetBy: -"SELECT ".count)...]
            return with + prefix + rest + ") AS shark_values"
        }
        return prefix + select + ") AS shark_values"
    }

    /// A computed value: a NaN a real operation made (∞ − ∞) is NULL, as on every driver.
    private static func expressionValue(of cell: PostgresCell) throws -> Value {
        let value = try PostgresValues.value(of: cell)
        if case .real(let real) = value, real.isNaN { return .null }
        return value
    }

    func values(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws -> [Value] {
        var compiler = self.compiler()
        let (select, _) = try compiler.values(of: expression, query, schema: schema)
        let statement = PostgresStatement(select, bindings: compiler.bindings, arguments: compiler.arguments)
        return try perform { session in
            try await session.rows(statement).map { try Self.expressionValue(of: $0.first!) }
        }
    }

    func distinctValues(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws -> [Value] {
        var compiler = self.compiler()
        let (select, _) = try compiler.values(of: expression, query, schema: schema)
        let statement = PostgresStatement(
            Self.wrap(select, "SELECT DISTINCT shark_value FROM (") + " ORDER BY shark_value ASC NULLS FIRST",
            bindings: compiler.bindings, arguments: compiler.arguments)
        return try perform { session in
            try await session.rows(statement).map { try Self.expressionValue(of: $0.first!) }
        }
    }
}
