@_spi(SharkDriver) import SharkORM

/// One connection of the server's engine, every call of which awaits the server.
final class RemoteConnection: DriverConnection {
    private let inner: Handoff<any DriverConnection>
    private let server: RemoteServer
    private let executor: SuspendingDriverExecutor

    init(_ inner: any DriverConnection, server: RemoteServer, executor: SuspendingDriverExecutor) {
        self.inner = Handoff(inner)
        self.server = server
        self.executor = executor
    }

    /// Sends `work` to the server, to run on this connection there, and waits for the answer.
    private func call<T>(_ work: @escaping (any DriverConnection) throws -> T) throws -> T {
        let inner = self.inner
        let server = self.server
        let request = Handoff({ try work(inner.value) })
        return try executor.wait { try await server.perform(request) }.value
    }

    func apply(_ schema: EntitySchema) throws { try call { try $0.apply(schema) } }
    func recordedSchemas() throws -> [EntitySchema] { try call { try $0.recordedSchemas() } }
    func beginTransaction() throws { try call { try $0.beginTransaction() } }
    func commitTransaction() throws { try call { try $0.commitTransaction() } }
    func rollbackTransaction() throws { try call { try $0.rollbackTransaction() } }
    func createSavepoint(_ name: String) throws { try call { try $0.createSavepoint(name) } }
    func releaseSavepoint(_ name: String) throws { try call { try $0.releaseSavepoint(name) } }
    func rollbackToSavepoint(_ name: String) throws { try call { try $0.rollbackToSavepoint(name) } }
    func beginRead() throws { try call { try $0.beginRead() } }
    func endRead() throws { try call { try $0.endRead() } }

    func insert<Source: RowSource>(_ source: Source, schema: EntitySchema, includingKey: Bool) throws -> Int64? {
        try call { try $0.insert(source, schema: schema, includingKey: includingKey) }
    }

    func update<Source: RowSource>(_ source: Source, key: Value, columns: ColumnSet, schema: EntitySchema) throws
        -> Bool
    {
        try call { try $0.update(source, key: key, columns: columns, schema: schema) }
    }

    func delete(key: Value, schema: EntitySchema) throws -> Bool {
        try call { try $0.delete(key: key, schema: schema) }
    }

    // A batch is one call, however many rows it holds.
    func insert<Source: RowSource>(_ sources: [Source], schema: EntitySchema, includingKey: Bool) throws -> [Int64] {
        try call { try $0.insert(sources, schema: schema, includingKey: includingKey) }
    }

    func update<Source: RowSource>(_ sources: [Source], keys: [Value], columns: ColumnSet, schema: EntitySchema)
        throws -> Int?
    {
        try call { try $0.update(sources, keys: keys, columns: columns, schema: schema) }
    }

    func updateAll(keys: [Value], setting assignments: [ColumnAssignment], schema: EntitySchema) throws {
        try call { try $0.updateAll(keys: keys, setting: assignments, schema: schema) }
    }

    /// The rows come back as values, as from a server; the app's callback runs here, on the
    /// caller's thread (it may load relationships through the caller's transaction).
    func read(_ request: ReadRequest, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws {
        let width = schema.columns.count
        let rows = try call { connection -> [[Value]] in
            var rows: [[Value]] = []
            try connection.read(request, schema: schema) { row in
                rows.append((0..<width).map { row.value(at: Int32($0)) })
            }
            return rows
        }
        let reader = ValueRowReader()
        for row in rows {
            reader.values = row
            try body(reader)
        }
    }

    func count(_ query: EntityQuery, schema: EntitySchema) throws -> Int {
        try call { try $0.count(query, schema: schema) }
    }

    func aggregate(
        _ function: AggregateFunction, of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema
    ) throws -> Value {
        try call { try $0.aggregate(function, of: expression, query, schema: schema) }
    }

    func values(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws -> [Value] {
        try call { try $0.values(of: expression, query, schema: schema) }
    }

    func distinctValues(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws
        -> [Value]
    {
        try call { try $0.distinctValues(of: expression, query, schema: schema) }
    }

    func performIdleMaintenance() throws { try call { try $0.performIdleMaintenance() } }
    func unrecordedSchema(of table: String) throws -> EntitySchema? { try call { try $0.unrecordedSchema(of: table) } }
    func schemaGeneration() throws -> Int64? { try call { try $0.schemaGeneration() } }
}
