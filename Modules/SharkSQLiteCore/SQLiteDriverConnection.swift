@_spi(SharkDriver) import SharkORM

/// A ``DriverConnection`` over one SQLite connection: compiles the core's operations to SQL.
package final class SQLiteDriverConnection: RawSQLConnection {
    /// The underlying connection.
    package let connection: SQLiteConnection
    private var entityStatements: [String: EntityStatements] = [:]
    /// For readers: the generation of the pool that opened it (see `ReaderPool`).
    var poolGeneration = 0
    /// The entity written or read last: a bulk write asks for the same one object after
    /// object, and comparing a schema with itself is cheaper than hashing its name.
    private var lastStatements: EntityStatements?

    /// For the writer of a writable store: nothing is written to the file until the app
    /// writes. Tables SharkORM did not create that models read as they are wait to be adopted
    /// (recorded, indexed) inside the app's first write transaction, and the switch to WAL
    /// follows the first write that succeeds: opening someone else's database and reading it
    /// leaves it byte for byte as it was, and a write that fails (an adoption refused) leaves
    /// it as it was too.
    private let writesLazily: Bool
    /// Whether the file is known to be in WAL mode.
    private var isInWAL = false
    /// Tables SharkORM did not create that models read as they are, to adopt in the next
    /// write transaction, by entity name.
    private var pendingAdoptions: [String: EntitySchema] = [:]
    /// The adoptions of the open transaction: pending again if it rolls back.
    private var adoptedInTransaction: [String: EntitySchema] = [:]

    /// - Parameter writesLazily: the writer of a writable store (see `writesLazily`).
    package init(_ connection: SQLiteConnection, writesLazily: Bool = false) {
        self.connection = connection
        self.writesLazily = writesLazily
    }

    private func statements(for schema: EntitySchema) -> EntityStatements {
        // The store passes the same schema value every time: the same column and index
        // storage is the same schema, without comparing it field by field (which the
        // synthesized equality does, column by column, for about 450 instructions).
        if let last = lastStatements, last.isStatements(of: schema) { return last }
        if let statements = entityStatements[schema.name], statements.schema == schema {
            lastStatements = statements
            return statements
        }
        let statements = EntityStatements(schema)
        entityStatements[schema.name] = statements
        lastStatements = statements
        return statements
    }

    /// Forgets every entity's statements (after a schema change).
    private func forgetStatements() {
        entityStatements.removeAll()
        lastStatements = nil
    }

    package func apply(_ schema: EntitySchema) throws {
        // Inside a transaction the app is writing already: adopt at once.
        let outsideTransaction = connection.isAutocommit
        let outcome = try SchemaMigrator(connection: connection).apply(
            schema, adoptsLater: writesLazily && outsideTransaction)
        switch outcome {
        case .readableAsIs:
            pendingAdoptions[schema.name] = schema
        case .changed, .unchanged:
            pendingAdoptions.removeValue(forKey: schema.name)
        }
        // A migration finalizes every cached statement (they may name a rebuilt table), so
        // forget the prepared statements of every entity.
        forgetStatements()
        if case .changed = outcome, outsideTransaction { try switchToWAL() }
    }

    package func beginTransaction() throws {
        try connection.execute("BEGIN IMMEDIATE")
        guard !pendingAdoptions.isEmpty else { return }
        do {
            for name in pendingAdoptions.keys.sorted() {
                guard let schema = pendingAdoptions[name] else { continue }
                _ = try SchemaMigrator(connection: connection).apply(schema)
                adoptedInTransaction[name] = schema
                pendingAdoptions.removeValue(forKey: name)
            }
            forgetStatements()
        } catch {
            try? connection.execute("ROLLBACK")
            restorePendingAdoptions()
            throw error
        }
    }

    /// After the first write that succeeded: the file goes to WAL (readers then never wait
    /// for the writer) with `synchronous=NORMAL` (safe in WAL, not with a rollback journal).
    func switchToWAL() throws {
        guard writesLazily, !isInWAL else { return }
        if try connection.scalar("PRAGMA journal_mode")?.coercedToText().lowercased() != "wal" {
            try connection.execute("PRAGMA journal_mode = WAL")
        }
        try connection.execute("PRAGMA synchronous = NORMAL")
        isInWAL = true
    }

    package func commitTransaction() throws {
        try connection.execute("COMMIT")
        adoptedInTransaction.removeAll()
        try switchToWAL()
    }

    package func rollbackTransaction() throws {
        restorePendingAdoptions()
        try connection.execute("ROLLBACK")
    }

    /// The open transaction's adoptions are undone with it: pending again.
    private func restorePendingAdoptions() {
        pendingAdoptions.merge(adoptedInTransaction) { pending, _ in pending }
        adoptedInTransaction.removeAll()
    }
    package func createSavepoint(_ name: String) throws { try connection.execute("SAVEPOINT \(name)") }
    package func releaseSavepoint(_ name: String) throws { try connection.execute("RELEASE \(name)") }
    package func rollbackToSavepoint(_ name: String) throws { try connection.execute("ROLLBACK TO \(name)") }
    // Deferred: the first query starts the snapshot, and a reader never takes the write lock.
    package func beginRead() throws { try connection.execute("BEGIN DEFERRED") }
    package func endRead() throws { try connection.execute("COMMIT") }

    /// Readers that follow each other without a pause (live queries during a burst of
    /// commits) keep SQLite from ever starting the write-ahead log over: it grows, and every
    /// write and read works through a larger log. At such a pause, copy the log back into the
    /// database and have the next write start it over. It reports contention in its result,
    /// never as an error, and waits at most the busy timeout for a reader the observers do not
    /// know of.
    package func performIdleMaintenance() throws {
        _ = try connection.scalar("PRAGMA wal_checkpoint(RESTART)")
    }

    package func recordedSchemas() throws -> [EntitySchema] {
        try SchemaMigrator(connection: connection).recordedSchemas()
    }

    package func schemaGeneration() throws -> Int64? {
        try connection.scalar("PRAGMA schema_version")?.coercedToInt64()
    }

    package func unrecordedSchema(of table: String) throws -> EntitySchema? {
        try SchemaMigrator(connection: connection).readableSchema(of: table)
    }

    package func insert<Source: RowSource>(_ object: Source, schema: EntitySchema, includingKey: Bool) throws -> Int64?
    {
        let statement = try insertStatement(for: schema, includingKey: includingKey)
        let binder = statement.binder()
        let first: Int32 = includingKey ? 0 : 1
        try object._sharkWriteColumns(from: first, to: binder, offset: 1 - first)
        try statement.run(binder, entity: schema.name)
        return includingKey ? nil : connection.lastInsertRowID
    }

    package func insert<Source: RowSource>(_ sources: [Source], schema: EntitySchema, includingKey: Bool) throws
        -> [Int64]
    {
        // One statement, one binder, and nothing but binding and stepping per row.
        let statement = try insertStatement(for: schema, includingKey: includingKey)
        let first: Int32 = includingKey ? 0 : 1
        var keys: [Int64] = []
        if !includingKey { keys.reserveCapacity(sources.count) }
        // Index loops: generic code that is not specialized, where a `for … in` would look up
        // type metadata on every step.
        for position in 0..<sources.count {
            let source = sources[position]
            let binder = statement.binder()
            try source._sharkWriteColumns(from: first, to: binder, offset: 1 - first)
            try statement.run(binder, entity: schema.name)
            if !includingKey { keys.append(connection.lastInsertRowID) }
        }
        return keys
    }

    private func insertStatement(for schema: EntitySchema, includingKey: Bool) throws -> SQLStatement {
        let sql = statements(for: schema)
        if includingKey {
            if let statement = sql.preparedInsertWithKey { return statement }
            sql.preparedInsertWithKey = try connection.cachedStatement(sql.insertWithKey)
            return sql.preparedInsertWithKey!
        }
        if let statement = sql.preparedInsertWithoutKey { return statement }
        sql.preparedInsertWithoutKey = try connection.cachedStatement(sql.insertWithoutKey)
        return sql.preparedInsertWithoutKey!
    }

    package func update<Source: RowSource>(_ object: Source, key: Value, columns: ColumnSet, schema: EntitySchema)
        throws -> Bool
    {
        let statement = try statements(for: schema).update(columns: columns, on: connection)
        let binder = statement.binder()
        let writer: any RowWriter = binder
        var position: Int32 = 1
        for column in columns {
            try object._sharkWrite(column: column, to: writer, at: position)
            position += 1
        }
        binder.write(key, at: position)
        return try statement.run(binder, entity: schema.name) > 0
    }

    package func update<Source: RowSource>(
        _ sources: [Source], keys: [Value], columns: ColumnSet, schema: EntitySchema
    ) throws -> Int? {
        let statement = try statements(for: schema).update(columns: columns, on: connection)
        let keyPosition = Int32(columns.count + 1)
        let binder = statement.binder()
        let writer: any RowWriter = binder
        for position in 0..<sources.count {
            let source = sources[position]
            binder.reset()
            var parameter: Int32 = 1
            for column in columns {
                try source._sharkWrite(column: column, to: writer, at: parameter)
                parameter += 1
            }
            binder.write(keys[position], at: keyPosition)
            if try statement.run(binder, entity: schema.name) == 0 { return position }
        }
        return nil
    }

    package func delete(key: Value, schema: EntitySchema) throws -> Bool {
        let statement = try connection.cachedStatement(statements(for: schema).deleteByKey)
        return try statement.run([key], entity: schema.name) > 0
    }

    package func updateAll(keys: [Value], setting assignments: [ColumnAssignment], schema: EntitySchema) throws {
        var compiler = QueryCompiler(parameterLimit: connection.parameterLimit)
        let text = compiler.update(assignments, statements: statements(for: schema))
        try reportingOverflow(of: "a value set by updateAll") {
            try connection.withStatement(text) { statement in
                for key in keys {
                    _ = try statement.run(compiler.arguments + [key], overflow: compiler.overflow, entity: schema.name)
                }
            }
        }
    }

    package func read(_ request: ReadRequest, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws {
        let sql = statements(for: schema)
        switch request {
        case .key(let key):
            // Lookups by key (`find`, `refresh`) are the most frequent read: their statement
            // is kept prepared per entity, skipping SQL generation and the cache lookup by text.
            if sql.preparedFindByKey == nil {
                sql.preparedFindByKey = try connection.cachedStatement(sql.selectByKey)
            }
            let statement = sql.preparedFindByKey!
            let binder = statement.binder()
            binder.write(key, at: 1)
            try statement.run(binder, entity: schema.name) { row in try body(row) }
        case .query(let query):
            _ = try reportingOverflow(of: "a value of the query") {
                try run(QueryShape(statement: .select(query.columns), query: query), sql) { row in try body(row) }
            }
        }
    }

    package func count(_ query: EntityQuery, schema: EntitySchema) throws -> Int {
        try reportingOverflow(of: "a value of the query") {
            let shape = QueryShape(statement: .count, query: query)
            return Int(try firstColumn(shape, statements(for: schema)).first?.coercedToInt64() ?? 0)
        }
    }

    package func aggregate(
        _ function: AggregateFunction, of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema
    ) throws -> Value {
        try reportingOverflow(of: "the \(function.rawValue) of \(expression)") {
            let shape = QueryShape(statement: .aggregate(function, expression), query: query)
            return try firstColumn(shape, statements(for: schema)).first ?? .null
        }
    }

    package func distinctValues(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws
        -> [Value]
    {
        try reportingOverflow(of: "a value of \(expression)") {
            try firstColumn(QueryShape(statement: .distinct(expression), query: query), statements(for: schema))
        }
    }

    /// Runs the statement of a query, calling `body` per row. A shape run before reuses its
    /// prepared statement with this query's values (the plan cache); a new one is compiled,
    /// and kept for next time once its values are confirmed to come out in the order the
    /// compiler bound them.
    private func run(_ shape: QueryShape, _ sql: EntityStatements, _ body: (SQLRow) throws -> Void) throws {
        // Equal shapes collect equally many values; the count is checked all the same, since
        // slicing past the end would trap.
        if let plan = sql.plans[shape], case var arguments = shape.arguments, arguments.count >= plan.parameters {
            let overflow = Array(arguments[plan.parameters...])
            arguments.removeSubrange(plan.parameters...)
            try plan.statement.run(arguments, overflow: overflow, entity: sql.schema.name, body)
            return
        }
        var compiler = QueryCompiler(parameterLimit: connection.parameterLimit)
        let text: String
        switch shape.statement {
        case .select(let columns):
            text = compiler.select(shape.query, statements: sql, columns: sql.columns(columns))
        case .count:
            text = compiler.count(shape.query, statements: sql)
        case .aggregate(let function, let expression):
            text = compiler.aggregate(function, of: expression, shape.query, statements: sql)
        case .distinct(let expression):
            text = compiler.distinct(expression, shape.query, statements: sql)
        case .values(let expression):
            text = compiler.values(of: expression, shape.query, statements: sql)
        }
        try connection.withStatement(text) { statement in
            if text.utf8.count <= SQLiteConnection.longestCachedStatement,
                shape.arguments == compiler.arguments + compiler.overflow
            {
                if sql.plans.count >= EntityStatements.planLimit { sql.plans.removeAll() }
                sql.plans[shape] = (statement, compiler.arguments.count)
            }
            try statement.run(compiler.arguments, overflow: compiler.overflow, entity: sql.schema.name, body)
        }
    }

    /// SQLite fails a statement whose integer result leaves 64 bits (a `sum`, the `abs` of the
    /// smallest integer) with a bare "integer overflow"; report it as the value problem it is,
    /// as the memory engine does.
    private func reportingOverflow<T>(of subject: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch SharkError.driver(code: 1, message: "integer overflow", sql: _) {
            throw SharkError.invalidValue(.integerOverflow, "integer overflow: \(subject()) does not fit in 64 bits")
        }
    }

    package func values(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws -> [Value] {
        try reportingOverflow(of: "a value of \(expression)") {
            try firstColumn(QueryShape(statement: .values(expression), query: query), statements(for: schema))
        }
    }

    /// Runs a query and returns the first column of every row.
    private func firstColumn(_ shape: QueryShape, _ sql: EntityStatements) throws -> [Value] {
        var values: [Value] = []
        try run(shape, sql) { row in values.append(row.value(at: 0)) }
        return values
    }

    package func executeRaw(_ sql: String, arguments: [Value], protecting protected: Set<String>) throws -> RawResult {
        let statement = try connection.prepareSingleStatement(sql)
        let writesOnItsOwn = (!statement.writtenTables.isEmpty || statement.changesSchema) && connection.isAutocommit
        let foldedProtected = Set(protected.map(EntitySchema.folded))
        if let refused = statement.writtenTables.sorted().first(where: {
            foldedProtected.contains(EntitySchema.folded($0))
        }) {
            throw SharkError.invalidQuery(
                .rawStatementWritesProtected,
                "raw SQL may not write \(refused): its changes are tracked row by row (by sync, say), which raw SQL "
                    + "cannot report; write it through models instead")
        }
        try checkArguments(of: statement, arguments)
        var result = RawResult(
            columns: statement.columnNames, rows: [], changes: 0, writtenEntities: statement.writtenTables)
        let count = try statement.run(arguments) { row in
            result.rows.append((0..<row.columnCount).map { row.value(at: $0) })
        }
        if !statement.returnsRows { result.changes = count }
        // A new trigger or foreign key changes which statements are safe to prepare (see
        // `EntityStatements.update`).
        if statement.changesSchema { forgetStatements() }
        if writesOnItsOwn { try switchToWAL() }
        return result
    }

    package func readRaw(_ sql: String, arguments: [Value]) throws -> RawResult {
        // Refused as SQLite prepares it (a pragma may act then), and checked again after: a
        // statement such as VACUUM asks the authorizer nothing.
        let statement = try connection.prepareSingleStatement(sql, readOnly: true)
        guard statement.isReadOnly else {
            throw SharkError.invalidQuery(
                .rawStatementMayWrite,
                "this statement may change the database: run it with execute(_:arguments:), or inside a write "
                    + "transaction")
        }
        try checkArguments(of: statement, arguments)
        var result = RawResult(columns: statement.columnNames, rows: [], changes: 0)
        _ = try statement.run(arguments) { row in
            result.rows.append((0..<row.columnCount).map { row.value(at: $0) })
        }
        return result
    }

    /// SQLite binds NULL to every parameter left unbound: a missing argument would silently
    /// match nothing, or write NULL.
    private func checkArguments(of statement: SQLStatement, _ arguments: [Value]) throws {
        guard statement.parameterCount == arguments.count else {
            throw SharkError.invalidQuery(
                .rawArgumentCount,
                "the statement has \(statement.parameterCount) parameter(s) but \(arguments.count) argument(s) were given"
            )
        }
    }
}
