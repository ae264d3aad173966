import SharkORM

/// A ``DriverConnection`` over one SQLite connection: compiles the core's operations to SQL.
public final class SQLDriverConnection: DriverConnection {
    /// The underlying connection.
    public let connection: SQLiteConnection
    private var entityStatements: [String: EntityStatements] = [:]

    public init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    private func statements(for schema: EntitySchema) -> EntityStatements {
        // Comparing schemas is cheap in the common case: the store passes the same arrays
        // every time, and array equality starts by comparing storage.
        if let statements = entityStatements[schema.name], statements.schema == schema { return statements }
        let statements = EntityStatements(schema)
        entityStatements[schema.name] = statements
        return statements
    }

    public func apply(_ schema: EntitySchema) throws {
        try SchemaMigrator(connection: connection).apply(schema)
        // A migration finalizes every cached statement (they may name a rebuilt table), so
        // forget the prepared statements of every entity.
        entityStatements.removeAll()
    }

    public func beginTransaction() throws { try connection.execute("BEGIN IMMEDIATE") }
    public func commitTransaction() throws { try connection.execute("COMMIT") }
    public func rollbackTransaction() throws { try connection.execute("ROLLBACK") }
    public func createSavepoint(_ name: String) throws { try connection.execute("SAVEPOINT \(name)") }
    public func releaseSavepoint(_ name: String) throws { try connection.execute("RELEASE \(name)") }
    public func rollbackToSavepoint(_ name: String) throws { try connection.execute("ROLLBACK TO \(name)") }
    // Deferred: the first query starts the snapshot, and a reader never takes the write lock.
    public func beginRead() throws { try connection.execute("BEGIN DEFERRED") }
    public func endRead() throws { try connection.execute("COMMIT") }

    public func insert<M: Model>(_ object: M, schema: EntitySchema, includingKey: Bool) throws -> Int64? {
        let statement = try insertStatement(for: schema, includingKey: includingKey)
        let binder = statement.binder()
        let first: Int32 = includingKey ? 0 : 1
        for column in first..<Int32(schema.columns.count) {
            try object._sharkWrite(column: column, to: binder, at: column - first + 1)
        }
        try statement.run(binder, entity: schema.name)
        return includingKey ? nil : connection.lastInsertRowID
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

    public func update<M: Model>(_ object: M, columns: [Int32], schema: EntitySchema) throws -> Bool {
        let text = statements(for: schema).update(columns: columns)
        let statement = try connection.cachedStatement(text)
        let binder = statement.binder()
        for (offset, column) in columns.enumerated() {
            try object._sharkWrite(column: column, to: binder, at: Int32(offset + 1))
        }
        try object._sharkWrite(column: 0, to: binder, at: Int32(columns.count + 1))
        return try statement.run(binder, entity: schema.name) > 0
    }

    public func delete(key: Value, schema: EntitySchema) throws -> Bool {
        let statement = try connection.cachedStatement(statements(for: schema).deleteByKey)
        return try statement.run([key], entity: schema.name) > 0
    }

    public func select(
        _ query: QueryDescription, schema: EntitySchema, _ body: (any RowReader) throws -> Void
    ) throws {
        let sql = statements(for: schema)
        // Lookups by key (`find`, `refresh`) are the most frequent query: their statement is
        // kept prepared per entity, skipping SQL generation and the cache lookup by text.
        if let key = Self.keyLookup(in: query, schema: schema) {
            if sql.preparedFindByKey == nil {
                var compiler = QueryCompiler(parameterLimit: connection.parameterLimit)
                sql.preparedFindByKey = try connection.cachedStatement(
                    compiler.select(query, statements: sql, columns: sql.selectColumns))
            }
            try sql.preparedFindByKey!.run([key, .integer(1)], entity: schema.name) { row in try body(row) }
            return
        }
        var compiler = QueryCompiler(parameterLimit: connection.parameterLimit)
        let text = compiler.select(query, statements: sql, columns: sql.selectColumns)
        try connection.withStatement(text) { statement in
            try statement.run(compiler.arguments, overflow: compiler.overflow, entity: schema.name) { row in
                try body(row)
            }
        }
    }

    /// The key of a query that is exactly "the row whose key is K" (limit 1, no ordering).
    private static func keyLookup(in query: QueryDescription, schema: EntitySchema) -> Value? {
        guard query.limit == 1, query.offset == nil, query.ordering.isEmpty,
            case .comparison(.equal, .column(let name), .value(let key))? = query.predicate,
            name == schema.key.name
        else { return nil }
        return key
    }

    public func count(_ query: QueryDescription, schema: EntitySchema) throws -> Int {
        var compiler = QueryCompiler(parameterLimit: connection.parameterLimit)
        let text = compiler.count(query, statements: statements(for: schema))
        var count: Int64 = 0
        try connection.withStatement(text) { statement in
            try statement.run(compiler.arguments, overflow: compiler.overflow, entity: schema.name) { row in
                count = row.int64(at: 0)
            }
        }
        return Int(count)
    }

    public func executeRaw(_ sql: String, arguments: [Value]) throws -> RawResult {
        let statement = try connection.prepareSingleStatement(sql)
        // SQLite binds NULL to every parameter left unbound: a missing argument would silently
        // match nothing, or write NULL.
        guard statement.parameterCount == arguments.count else {
            throw SharkError.invalidQuery(
                "the statement has \(statement.parameterCount) parameter(s) but \(arguments.count) argument(s) were given"
            )
        }
        var result = RawResult(columns: statement.columnNames, rows: [], changes: 0)
        let count = try statement.run(arguments) { row in
            result.rows.append((0..<row.columnCount).map { row.value(at: $0) })
        }
        if !statement.returnsRows { result.changes = count }
        return result
    }
}
