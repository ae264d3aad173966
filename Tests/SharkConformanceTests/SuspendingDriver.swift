import Foundation
import SharkMemory
@_spi(SharkDriver) import SharkORM

@testable import SharkDriverConformance

/// A driver whose every operation suspends, as a network database's does: its data lives
/// behind an actor (here a memory engine, as a server would hold it), and each call awaits
/// that actor through a `SuspendingDriverExecutor`, the way docs/architecture.md ("Drivers
/// whose calls suspend") says such a driver plugs into the blocking seam. The conformance
/// suite runs on it as on every other driver (`TestDriver.suspending`): the decision is
/// tested by every check, not by a few.
final class SuspendingDriver: IntegrityChecking, @unchecked Sendable {
    let name = "suspending"
    private let engine: RemoteEngine
    private let executor = SuspendingDriverExecutor(name: "suspending driver")
    let writer: any DriverConnection

    init(tracer: Tracer) {
        engine = RemoteEngine(MemoryDriver(tracer: tracer))
        writer = SuspendingConnection(
            engine.driver.writer, engine: engine, executor: executor)
    }

    /// A reader of the engine, each of its calls awaited like the writer's; the connection is
    /// taken on the caller's thread, as a client takes one from its pool.
    func read<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        try engine.driver.read { reader in
            try body(SuspendingConnection(reader, engine: engine, executor: executor))
        }
    }

    func close() {
        engine.driver.close()
        executor.shutdown()
    }

    func checkIntegrity() throws -> [String] {
        let engine = self.engine
        return try executor.wait { try await engine.checkIntegrity() }
    }
}

extension StoreConfiguration {
    /// A store on a ``SuspendingDriver``.
    static var suspending: StoreConfiguration {
        StoreConfiguration(driverName: "suspending") { tracer in SuspendingDriver(tracer: tracer) }
    }
}

/// What the driver's calls await: the engine's work runs inside it, one call at a time.
private actor RemoteEngine {
    nonisolated let driver: MemoryDriver

    init(_ driver: MemoryDriver) { self.driver = driver }

    func perform<T>(_ work: Unchecked<() throws -> T>) throws -> Unchecked<T> { Unchecked(try work.value()) }

    func checkIntegrity() throws -> [String] { try driver.checkIntegrity() }
}

/// A value handed across the executor while its owner waits for the call to return: the
/// caller is blocked meanwhile, so nothing else touches it.
private struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// One connection of the engine, every call of which awaits the engine.
private final class SuspendingConnection: DriverConnection {
    private let inner: Unchecked<any DriverConnection>
    private let engine: RemoteEngine
    private let executor: SuspendingDriverExecutor

    init(_ inner: any DriverConnection, engine: RemoteEngine, executor: SuspendingDriverExecutor) {
        self.inner = Unchecked(inner)
        self.engine = engine
        self.executor = executor
    }

    /// Runs `work` on the engine's connection inside the engine actor, and waits for it.
    private func call<T>(_ work: @escaping (any DriverConnection) throws -> T) throws -> T {
        let inner = self.inner
        let engine = self.engine
        let job = Unchecked({ try work(inner.value) })
        return try executor.wait { try await engine.perform(job) }.value
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
