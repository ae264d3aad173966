/// The write stage: the one place where a write reaches the driver and is recorded.
///
/// Every kind of write ends here as an intent — insert these rows, update these columns of
/// the rows with these keys, delete the row with this key, set these expressions on these
/// rows, run this raw statement — whoever asked for it: an object commit or removal, a bulk
/// commit, an upsert, a delete rule, a row call, `updateAll`, raw SQL, a sync import or sync's
/// own bookkeeping. The stage calls the driver's writer connection and records the change by
/// the role in force (``WriteRole``), which decides whether observers see it and how events
/// report it. What happens around it lives next door: hooks, vetoes and object state in
/// `WritePipeline.swift`, observers, COMMIT and events in `WriteStage+Transaction.swift`.
///
/// A new kind of write adds an intent here, and nowhere else calls the driver's `insert`,
/// `update`, `delete`, `updateAll` or `executeRaw`, or records a change:
/// `scripts/check-write-stage.py` holds CI to that.
///
/// One per store, used only with the store's writer held.
@usableFromInline
final class WriteStage: @unchecked Sendable {
    let driver: any Driver
    let writer: any DriverConnection
    let transactions: TransactionStack
    /// The role of the writes made now (see ``WriteRole``).
    private(set) var role: WriteRole = .app
    /// Who the open transaction's changes are attributed to: its commit event's origin.
    private(set) var origin: ChangeOrigin = .local
    /// Who assigns new keys instead of the driver, by entity (see ``KeyAllocator``).
    var keyAllocators: [String: any KeyAllocator] = [:]

    init(driver: any Driver, transactions: TransactionStack) {
        self.driver = driver
        self.writer = driver.writer
        self.transactions = transactions
    }

    // MARK: Roles

    /// A new outermost transaction: the app's, until something says otherwise.
    func beginTransaction() {
        role = .app
        origin = .local
    }

    /// The rest of the open transaction replays writes from `origin`. Only the app's role
    /// changes with it: what an observer or bookkeeping writes stays theirs.
    func attribute(to origin: ChangeOrigin) {
        self.origin = origin
        switch (role, origin) {
        case (.app, .imported(let source)), (.imported, .imported(let source)): role = .imported(from: source)
        case (.imported, .local): role = .app
        default: break
        }
    }

    /// Runs `body` with its writes made in `role`, then goes back to the role before.
    func writing<T>(as role: WriteRole, _ body: () throws -> T) rethrows -> T {
        let previous = self.role
        self.role = role
        defer { self.role = previous }
        return try body()
    }

    // MARK: Intents

    /// Inserts the row `source` holds; `key` is its key, or, when `assigningKey`, the engine
    /// assigns one, which is returned.
    func insert<Source: RowSource>(_ source: Source, key: Value, assigningKey: Bool, schema: EntitySchema) throws
        -> Int64?
    {
        if assigningKey, let allocator = keyAllocators[schema.name] {
            let keys = try allocator.allocateKeys(1, for: schema)
            guard keys.count == 1, let chosen = keys.first else {
                throw SharkError.invalidKey(
                    entity: schema.name, reason: "its key allocator gave \(keys.count) keys for 1 row")
            }
            _ = try writer.insert(AllocatedKeyRow(source: source, key: chosen), schema: schema, includingKey: true)
            record(schema, key: .integer(chosen), .insert, ColumnSet())
            return chosen
        }
        let assigned = try writer.insert(source, schema: schema, includingKey: !assigningKey)
        record(schema, key: assigningKey ? .integer(assigned ?? 0) : key, .insert, ColumnSet())
        return assigned
    }

    /// Inserts one row per source, in order, in one driver call; returns the keys the engine
    /// assigned when `assigningKeys` (none otherwise). `key(at:)` gives a source's own key,
    /// asked only when the change is recorded.
    @usableFromInline
    func insert<Source: RowSource>(
        _ sources: [Source], assigningKeys: Bool, schema: EntitySchema, key: (Int) -> Value
    ) throws -> [Int64] {
        if assigningKeys, let allocator = keyAllocators[schema.name] {
            let chosen = try allocator.allocateKeys(sources.count, for: schema)
            guard chosen.count == sources.count else {
                throw SharkError.invalidKey(
                    entity: schema.name, reason: "its key allocator gave \(chosen.count) keys for \(sources.count) rows"
                )
            }
            let rows = zip(sources, chosen).map { AllocatedKeyRow(source: $0, key: $1) }
            _ = try writer.insert(rows, schema: schema, includingKey: true)
            if records { for key in chosen { record(schema, key: .integer(key), .insert, ColumnSet()) } }
            return chosen
        }
        let assigned = try writer.insert(sources, schema: schema, includingKey: !assigningKeys)
        if records {
            for position in 0..<sources.count {
                record(schema, key: assigningKeys ? .integer(assigned[position]) : key(position), .insert, ColumnSet())
            }
        }
        return assigned
    }

    /// Writes `columns` of `source` to the row whose key is `key`; false when there is none.
    func update<Source: RowSource>(_ source: Source, key: Value, columns: ColumnSet, schema: EntitySchema) throws
        -> Bool
    {
        guard try writer.update(source, key: key, columns: columns, schema: schema) else { return false }
        record(schema, key: key, .update, columns)
        return true
    }

    /// Writes the same `columns` of each source to the row with the matching key; returns
    /// the position of the first source that has no row (the savepoint around a bulk commit
    /// undoes what was written before it), or nil.
    @usableFromInline
    func update<Source: RowSource>(_ sources: [Source], keys: [Value], columns: ColumnSet, schema: EntitySchema)
        throws -> Int?
    {
        if let missing = try writer.update(sources, keys: keys, columns: columns, schema: schema) { return missing }
        if records { for key in keys { record(schema, key: key, .update, columns) } }
        return nil
    }

    /// Deletes the row whose key is `key`; false when there was none.
    func delete(key: Value, schema: EntitySchema) throws -> Bool {
        guard try writer.delete(key: key, schema: schema) else { return false }
        record(schema, key: key, .delete, ColumnSet())
        return true
    }

    /// Sets `assignments` on the rows whose keys are `keys` (see
    /// `DriverConnection.updateAll(keys:setting:schema:)`).
    func updateAll(keys: [Value], setting assignments: [ColumnAssignment], schema: EntitySchema) throws {
        try writer.updateAll(keys: keys, setting: assignments, schema: schema)
        if records {
            var columns = ColumnSet()
            for assignment in assignments { columns.insert(Int32(assignment.column)) }
            for key in keys { record(schema, key: key, .update, columns) }
        }
    }

    /// Runs a raw statement inside the open transaction, refusing before it runs one that
    /// writes an entity in `protected`; records the entities it wrote as changes of unknown
    /// rows (SQL does not say which).
    func executeRaw(_ sql: String, arguments: [Value], protecting protected: Set<String>) throws -> RawResult {
        let result = try rawWriter().executeRaw(sql, arguments: arguments, protecting: protected)
        if records {
            for entity in result.writtenEntities.sorted() {
                record(
                    EntitySchema(name: entity, keyKind: .autoIncrement, columns: []), key: nil, .unknown, ColumnSet())
            }
        }
        return result
    }

    /// Runs a raw statement outside any transaction, when nobody listens for changes (so that
    /// statements that cannot run in a transaction, VACUUM, still can): nothing to record.
    func executeRawAlone(_ sql: String, arguments: [Value]) throws -> RawResult {
        try rawWriter().executeRaw(sql, arguments: arguments, protecting: [])
    }

    /// The writer's raw SQL capability, or the error saying the driver has none.
    private func rawWriter() throws -> any RawSQLConnection {
        try Store.rawCapability(of: writer, driver: driver)
    }

    // MARK: Recording

    /// Whether the open transaction records changes at all (someone listens) and the role
    /// records them.
    private var records: Bool { transactions.recordsChanges && role != .bookkeeping }

    /// Records one change at the innermost level, as the role says. Inlined down to the check
    /// of whether anyone listens: a removal of 10,000 objects with nobody listening pays for
    /// nothing more.
    @inline(__always)
    private func record(_ schema: EntitySchema, key: Value?, _ operation: Change.Operation, _ columns: ColumnSet) {
        guard transactions.recordsChanges else { return }
        recordListened(schema, key: key, operation, columns)
    }

    private func recordListened(
        _ schema: EntitySchema, key: Value?, _ operation: Change.Operation, _ columns: ColumnSet
    ) {
        switch role {
        case .app, .imported:
            transactions.record(schema: schema, key: key, operation, columns, origin: origin, byObserver: false)
        case .observer(let protected):
            // An observer's own metadata: nobody else's business.
            if protected.contains(schema.name) { return }
            transactions.record(schema: schema, key: key, operation, columns, origin: origin, byObserver: true)
        case .bookkeeping:
            return
        }
    }
}
