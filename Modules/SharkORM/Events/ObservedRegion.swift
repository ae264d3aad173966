import Foundation

/// The entities an observation's computation read: a commit that touches none of them cannot
/// change its result, so it does not re-run.
///
/// The region is recorded from the reads themselves, not declared: while an observation
/// computes, every connection the store hands out for reading is wrapped in a
/// ``RegionRecordingConnection`` that notes the entity of each read, the entities its paths
/// and subqueries reach, and the related entities faults and prefetches load. A raw SQL read
/// cannot say what it read, so it widens the region to everything. A region therefore never
/// misses a change because it was declared too narrow — the complaint observers of other
/// libraries have.
///
/// It travels with the computation as a scope of `TransactionScope`, and across the hop to
/// a reader thread of the async API (see `StoreWorkers.run`).
final class ObservedRegion: ScopedTransaction, @unchecked Sendable {
    let store: Store
    private let lock = NSLock()
    private var entities: Set<String> = []
    private var everything = false

    init(store: Store) { self.store = store }

    func usability() -> SharkError? { nil }

    /// What was read: the entities, or every entity.
    var recorded: (entities: Set<String>, everything: Bool) {
        lock.withLock { (entities, everything) }
    }

    func record(_ entity: String) {
        lock.withLock { _ = entities.insert(entity) }
    }

    /// The query's entity and every entity its expressions reach.
    func record(_ query: EntityQuery) {
        record(query.entity)
        query.predicate.map(record)
        for term in query.ordering { record(term.expression) }
    }

    func record(_ expression: QueryExpression) {
        var pending = [expression]
        while let node = pending.popLast() {
            switch node {
            case .path(let step, let inner):
                record(step.entity)
                pending.append(inner)
            case .isInSubquery(let operand, let subquery):
                record(subquery.entity)
                pending.append(operand)
                if let predicate = subquery.predicate { pending.append(predicate) }
            default:
                pending += node.operands
            }
        }
    }

    func recordEverything() {
        lock.withLock { everything = true }
    }

    /// Whether a commit may have changed what was read.
    func mayBeChanged(by notice: CommitNotice) -> Bool {
        let (entities, everything) = recorded
        return everything || notice.mayTouch(entities)
    }
}

extension TransactionScope {
    /// The region being recorded for `store` by the computation running here, if any.
    static func region(of store: Store) -> ObservedRegion? {
        for scope in open.reversed() {
            if let region = scope as? ObservedRegion, region.store === store { return region }
        }
        return nil
    }

    /// The regions being recorded here: what a job handed to another thread takes along.
    static var regions: [any ScopedTransaction] {
        open.isEmpty ? [] : open.filter { $0 is ObservedRegion }
    }
}

/// A connection that notes in a region every entity read through it, and forwards
/// everything to the connection it wraps.
final class RegionRecordingConnection: DriverConnection {
    let base: any DriverConnection
    let region: ObservedRegion

    init(_ base: any DriverConnection, recordingInto region: ObservedRegion) {
        self.base = base
        self.region = region
    }

    func apply(_ schema: EntitySchema) throws { try base.apply(schema) }
    func recordedSchemas() throws -> [EntitySchema] { try base.recordedSchemas() }
    func unrecordedSchema(of table: String) throws -> EntitySchema? { try base.unrecordedSchema(of: table) }
    func schemaGeneration() throws -> Int64? { try base.schemaGeneration() }
    func beginTransaction() throws { try base.beginTransaction() }
    func commitTransaction() throws { try base.commitTransaction() }
    func rollbackTransaction() throws { try base.rollbackTransaction() }
    func createSavepoint(_ name: String) throws { try base.createSavepoint(name) }
    func releaseSavepoint(_ name: String) throws { try base.releaseSavepoint(name) }
    func rollbackToSavepoint(_ name: String) throws { try base.rollbackToSavepoint(name) }
    func beginRead() throws { try base.beginRead() }
    func endRead() throws { try base.endRead() }

    func insert<Source: RowSource>(_ source: Source, schema: EntitySchema, includingKey: Bool) throws -> Int64? {
        try base.insert(source, schema: schema, includingKey: includingKey)
    }
    func update<Source: RowSource>(_ source: Source, key: Value, columns: ColumnSet, schema: EntitySchema) throws
        -> Bool
    {
        try base.update(source, key: key, columns: columns, schema: schema)
    }
    func delete(key: Value, schema: EntitySchema) throws -> Bool { try base.delete(key: key, schema: schema) }
    func updateAll(keys: [Value], setting assignments: [ColumnAssignment], schema: EntitySchema) throws {
        try base.updateAll(keys: keys, setting: assignments, schema: schema)
    }

    func read(_ request: ReadRequest, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws {
        switch request {
        case .key: region.record(schema.name)
        case .query(let query): region.record(query)
        }
        try base.read(request, schema: schema, body)
    }
    func count(_ query: EntityQuery, schema: EntitySchema) throws -> Int {
        region.record(query)
        return try base.count(query, schema: schema)
    }
    func aggregate(
        _ function: AggregateFunction, of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema
    ) throws -> Value {
        region.record(query)
        region.record(expression)
        return try base.aggregate(function, of: expression, query, schema: schema)
    }
    func values(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws -> [Value] {
        region.record(query)
        region.record(expression)
        return try base.values(of: expression, query, schema: schema)
    }
    func distinctValues(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws
        -> [Value]
    {
        region.record(query)
        region.record(expression)
        return try base.distinctValues(of: expression, query, schema: schema)
    }
}
