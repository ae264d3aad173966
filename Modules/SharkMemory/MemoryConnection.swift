import Foundation
@_spi(SharkDriver) import SharkORM

/// A connection to the memory engine. The writer changes the driver's state in place (see
/// ``MemoryVersions``); a reader holds one snapshot.
final class MemoryConnection: DriverConnection {
    unowned let driver: MemoryDriver
    /// A reader's snapshot (the writer's state is the driver's `versions`).
    private var state: MemoryDatabaseState?
    private let isWriter: Bool
    /// The driver's versions, held here: reaching them through the unowned `driver` checks
    /// that it still lives, on every write.
    private let versions: MemoryVersions
    private let builder = RowBuilder()
    /// The changed values of an update, by column (see `update`).
    private let changes = RowBuilder()
    /// The driver's `isTracing`, kept here: reading the tracer through the driver copies it
    /// (its handlers and logger), which cost every lookup and write a tenth.
    private let isTracing: Bool

    /// A writer (`isWriter`), or a reader whose snapshot is taken by its first query, as
    /// SQLite's deferred read transactions take theirs: what was committed before a read
    /// statement is visible to it, even if it was committed after the read began (a model's
    /// table created on first use, say).
    init(driver: MemoryDriver, isWriter: Bool) {
        self.driver = driver
        self.state = nil
        self.isWriter = isWriter
        versions = driver.versions
        isTracing = driver.isTracing
    }

    // MARK: Transactions

    func beginTransaction() throws {
        traced("BEGIN") { versions.begin() }
    }

    func commitTransaction() throws {
        guard versions.isTransactionOpen else {
            throw SharkError.transactionMisuse(.noTransaction, "COMMIT without a transaction")
        }
        try traced("COMMIT") { try driver.commit() }
    }

    func rollbackTransaction() throws {
        traced("ROLLBACK") { versions.rollback() }
    }

    func createSavepoint(_ name: String) throws {
        try traced("SAVEPOINT \(name)") {
            guard versions.isTransactionOpen else {
                throw SharkError.transactionMisuse(.noTransaction, "SAVEPOINT without a transaction")
            }
            versions.createSavepoint(name)
        }
    }

    func releaseSavepoint(_ name: String) throws {
        traced("RELEASE \(name)") { versions.releaseSavepoint(name) }
    }

    func rollbackToSavepoint(_ name: String) throws {
        traced("ROLLBACK TO \(name)") { versions.rollbackToSavepoint(name) }
    }

    // A reader's state is one snapshot already.
    func beginRead() throws {}
    func endRead() throws {}

    /// Forgets a reader's snapshot, before the driver lends the connection to another read.
    func endReuse() {
        state = nil
    }

    // MARK: Schema

    func apply(_ schema: EntitySchema) throws {
        try write { versions in
            let existing = try current().table(named: schema.name)
            // Unchanged, the table is left alone, and the transaction keeps working in place.
            if let existing, existing.schema == schema { return }
            // Indexes on an empty table cannot clash; a new table is built through the
            // migration too, so the same code path serves both.
            let table = try (existing ?? MemoryTable(schema: schema)).migrated(to: schema)
            versions.modifyDatabase { $0.set(table) }
        }
    }

    // MARK: Writes

    func recordedSchemas() throws -> [EntitySchema] {
        try current().tables.map(\.schema).sorted { $0.name < $1.name }
    }

    func insert<Source: RowSource>(_ object: Source, schema: EntitySchema, includingKey: Bool) throws -> Int64? {
        try write { versions in
            // The columns are written before the lock is taken: they may run the model's code.
            builder.reset(count: schema.columns.count)
            try object._sharkWriteColumns(from: includingKey ? 0 : 1, to: builder, offset: 0)
            var assigned: Int64?
            var row: Row = []
            try traced(
                {
                    let names = schema.columns.map { "\"\($0.name)\"" }
                    return
                        "INSERT INTO \"\(schema.name)\" (\(names.joined(separator: ", "))) VALUES (\(placeholders(names.count)))"
                }, arguments: row, rows: 1
            ) {
                try versions.change(tableNamed: schema.name) { table in
                    if !includingKey {
                        let key = table.nextKey
                        builder.write(key, at: 0)
                        assigned = key
                    }
                    row = builder.take()
                    try table.insert(row)
                    return ((), .inserted(key: row[0]))
                }
            }
            return assigned
        }
    }

    func update<Source: RowSource>(_ object: Source, key: Value, columns: ColumnSet, schema: EntitySchema) throws
        -> Bool
    {
        try write { versions in
            // The new values are written before the lock is taken (they may run the model's
            // code), into a scratch row; the stored row is looked up and changed under it.
            changes.prepare(count: schema.columns.count)
            let writer: any RowWriter = changes
            for column in columns { try object._sharkWrite(column: column, to: writer, at: column) }
            var found = false
            try traced(
                {
                    let sets = columns.map { "\"\(schema.columns[Int($0)].name)\" = ?" }
                    return
                        "UPDATE \"\(schema.name)\" SET \(sets.joined(separator: ", ")) WHERE \"\(schema.key.name)\" = ?"
                }, arguments: columns.map { changes.value(at: $0) } + [key], rows: found ? 1 : 0
            ) {
                found = try versions.change(tableNamed: schema.name) { table in
                    guard let old = table.row(forKey: key) else { return (false, nil) }
                    var new = old
                    for column in columns { new[Int(column)] = changes.value(at: column) }
                    try table.replace(old, with: new)
                    return (true, .replaced(old: old))
                }
            }
            return found
        }
    }

    func updateAll(keys: [Value], setting assignments: [ColumnAssignment], schema: EntitySchema) throws {
        let database = try current()
        let table = try self.table(schema.name, in: database)
        let compiled = try assignments.map { assignment in
            (
                column: table.schema.columns[assignment.column],
                position: assignment.column,
                value: try CompiledExpression(assignment.value, schema: table.schema, database: database)
            )
        }
        var columns = ColumnSet()
        for assignment in assignments { columns.insert(Int32(assignment.column)) }
        for key in keys {
            // Every expression sees the row as it was before this update, as in SQL; each
            // value is checked against its column as the SQL drivers' shark_fit does.
            guard var row = table.row(forKey: key) else { continue }
            let old = row
            for assignment in compiled {
                row[assignment.position] = try assignment.column.storedValue(
                    try assignment.value.value(old), computed: true)
            }
            _ = try update(ValueRow(row), key: key, columns: columns, schema: schema)
        }
    }

    func delete(key: Value, schema: EntitySchema) throws -> Bool {
        try write { versions in
            try traced(
                { "DELETE FROM \"\(schema.name)\" WHERE \"\(schema.key.name)\" = ?" }, arguments: [key], rows: 1
            ) {
                try versions.change(tableNamed: schema.name) { table in
                    guard let old = table.delete(key: key) else { return (false, nil) }
                    return (true, .deleted(old: old))
                }
            }
        }
    }

    // MARK: Reads

    func read(_ request: ReadRequest, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws {
        switch request {
        case .key(let key):
            try driver.lookUp(key, schema: schema, in: try current(), isTracing: isTracing, body)
        case .query(let query):
            try select(query, schema: schema, body)
        }
    }

    private func select(_ query: EntityQuery, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws {
        let database = try current()
        let table = try self.table(schema.name, in: database)
        var execution = try QueryExecution(query, over: table, in: database)
        let reader = ValueRowReader()
        if !query.requiresOrder && !isTracing {
            // Any order will do: each row goes to the caller as the path reaches it, with no
            // array of matches in between.
            try execution.forEachMatch { row in
                reader.values = Self.selecting(query.columns, of: row)
                try body(reader)
            }
            driver.countVisits(execution.rowsVisited)
            return
        }
        let start = isTracing ? ContinuousClock.now : nil
        let rows = try execution.rows()
        driver.countVisits(execution.rowsVisited)
        if let start { trace(select: query, path: execution.path, rows: rows.count, since: start) }
        for row in rows {
            reader.values = Self.selecting(query.columns, of: row)
            try body(reader)
        }
    }

    /// The row with NULL for the columns a lightweight fetch leaves out (the key is kept).
    private static func selecting(_ columns: ColumnSet?, of row: Row) -> Row {
        guard let columns else { return row }
        var selected = row
        for position in 1..<row.count where !columns.contains(Int32(position)) { selected[position] = .null }
        return selected
    }

    func count(_ query: EntityQuery, schema: EntitySchema) throws -> Int {
        let database = try current()
        let table = try self.table(schema.name, in: database)
        var execution = try QueryExecution(query, over: table, in: database)
        let start = isTracing ? ContinuousClock.now : nil
        let count = try execution.count()
        driver.countVisits(execution.rowsVisited)
        if let start { trace(select: query, path: execution.path, rows: 1, since: start, counting: true) }
        return count
    }

    func aggregate(
        _ function: AggregateFunction, of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema
    ) throws -> Value {
        var aggregation = Aggregation(function)
        try forEachValue(of: expression, query, schema: schema) { try aggregation.add($0) }
        return try aggregation.result()
    }

    func values(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws -> [Value] {
        var values: [Value] = []
        try forEachValue(of: expression, query, schema: schema) { values.append($0) }
        return values
    }

    func distinctValues(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws
        -> [Value]
    {
        var values: [Value] = []
        try forEachValue(of: expression, query, schema: schema) { values.append($0) }
        // Sorted in SQLite's order, then one of each run of values SQLite calls equal.
        values.sort { SQLiteSemantics.compare($0, $1) < 0 }
        var distinct: [Value] = []
        for candidate in values where distinct.last.map({ SQLiteSemantics.compare($0, candidate) != 0 }) ?? true {
            distinct.append(candidate)
        }
        return distinct
    }

    /// Calls `body` with the value of `expression` for each row `query` matches (its window
    /// taken in its order), without building objects.
    private func forEachValue(
        of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema, _ body: (Value) throws -> Void
    ) throws {
        let database = try current()
        let table = try self.table(schema.name, in: database)
        var execution = try QueryExecution(query, over: table, in: database)
        let value = try CompiledExpression(expression, schema: table.schema, database: database)
        // Only a window depends on the order; a sort for anything else would be wasted.
        if query.limit != nil || query.offset != nil {
            for row in try execution.rows() { try body(try value.value(row)) }
        } else {
            try execution.forEachMatch { row in try body(try value.value(row)) }
        }
        driver.countVisits(execution.rowsVisited)
    }

    // MARK: Helpers

    private func current() throws -> MemoryDatabaseState {
        if let state { return state }
        guard isWriter else {
            let snapshot = try driver.readerSnapshot()
            state = snapshot
            return snapshot
        }
        return versions.working ?? versions.snapshot()
    }

    private func table(_ name: String, in database: MemoryDatabaseState) throws -> MemoryTable {
        guard let table = database.table(named: name) else { throw noTable(name) }
        return table
    }

    /// Runs `change` in the open transaction, or, outside one, in a transaction of its own
    /// that commits when the change succeeds (autocommit).
    private func write<T>(_ change: (MemoryVersions) throws -> T) throws -> T {
        guard isWriter else {
            throw SharkError.unsupported(.readOnlyConnection, "writing through a read-only connection")
        }
        if versions.isTransactionOpen { return try change(versions) }
        versions.begin()
        do {
            let result = try change(versions)
            try driver.commit()
            return result
        } catch {
            versions.rollback()
            throw error
        }
    }

    private func noTable(_ name: String) -> SharkError { MemoryDriver.noTable(name) }

    private func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    private func traced<T>(_ statement: String, _ body: () throws -> T) rethrows -> T {
        try traced({ statement }, arguments: [], rows: 0, body)
    }

    /// Runs `body` and reports it as a statement, built only when someone listens.
    private func traced<T>(
        _ statement: () -> String, arguments: @autoclosure () -> [Value], rows: @autoclosure () -> Int,
        _ body: () throws -> T
    ) rethrows -> T {
        guard isTracing else { return try body() }
        let start = ContinuousClock.now
        do {
            let result = try body()
            driver.tracer.record(
                statement: statement(), arguments: arguments(), duration: ContinuousClock.now - start, rows: rows())
            return result
        } catch {
            driver.tracer.record(
                statement: statement(), arguments: arguments(), duration: ContinuousClock.now - start, rows: 0,
                error: error)
            throw error
        }
    }

    private func trace(
        select query: EntityQuery, path: AccessPath, rows: Int, since start: ContinuousClock.Instant,
        counting: Bool = false
    ) {
        var arguments: [Value] = []
        var text = counting ? "SELECT count(*) FROM \"\(query.entity)\"" : "SELECT * FROM \"\(query.entity)\""
        if let predicate = query.predicate { text += " WHERE " + TraceText.render(predicate, arguments: &arguments) }
        if !query.ordering.isEmpty {
            text +=
                " ORDER BY "
                + query.ordering.map {
                    TraceText.render($0.expression, arguments: &arguments) + ($0.ascending ? "" : " DESC")
                }
                .joined(separator: ", ")
        }
        if let limit = query.limit {
            text += " LIMIT ?"
            arguments.append(.integer(Int64(limit)))
        }
        if let offset = query.offset {
            text += " OFFSET ?"
            arguments.append(.integer(Int64(offset)))
        }
        text += " -- \(path.description)"
        driver.tracer.record(
            statement: text, arguments: arguments, duration: ContinuousClock.now - start, rows: rows)
    }
}

/// Collects the columns generated code writes into a row of values, reused across writes.
///
/// An insert's row is built in place and handed over whole (``take()`` gives the array away);
/// an update's changed values go to a scratch row that is kept and read back by position.
/// A raw buffer copied into a new array at the end retained and released every value once
/// more, and building that array from the buffer went through the standard library's
/// unspecialized code: W4 (an update of every row) spent a tenth of its instructions there.
final class RowBuilder: RowWriter {
    // Unchecked: a bulk insert writes millions of values, and a class's property pays a
    // dynamic exclusivity check on each; the builder belongs to one connection, which one
    // thread uses at a time.
    @exclusivity(unchecked) private var row: Row = []

    /// Starts a row of `count` NULLs.
    func reset(count: Int) {
        row = Row(repeating: .null, count: count)
    }

    /// Makes the row `count` values long, keeping its buffer: for a builder whose row is read
    /// back by position (``value(at:)``) and never taken.
    func prepare(count: Int) {
        if row.count != count { row = Row(repeating: .null, count: count) }
    }

    /// The value last written at `index`.
    func value(at index: Int32) -> Value { row[Int(index)] }

    /// The row built so far, moved out; the builder is left empty.
    func take() -> Row {
        defer { row = [] }
        return row
    }

    func writeNull(at index: Int32) { row[Int(index)] = .null }
    func write(_ value: Int64, at index: Int32) { row[Int(index)] = .integer(value) }
    func write(_ value: Double, at index: Int32) { row[Int(index)] = .real(value) }
    func write(_ value: String, at index: Int32) { row[Int(index)] = .text(value) }
    func write(_ value: Data, at index: Int32) { row[Int(index)] = .blob(value) }
}

extension AccessPath: CustomStringConvertible {
    var description: String {
        switch self {
        case .keys(let keys): return "SEARCH USING KEY (\(keys.count) value(s))"
        case .keyRange: return "SEARCH USING KEY RANGE"
        case .indexRange(let index, _, _): return "SEARCH USING INDEX #\(index) RANGE"
        case .indexValues(let index, _): return "SEARCH USING INDEX #\(index) IN"
        case .indexOrder(let index): return "SCAN USING INDEX #\(index) ORDER"
        case .indexOrderDescending(let index): return "SCAN USING INDEX #\(index) ORDER DESC"
        case .fullScan: return "SCAN"
        case .fullScanDescending: return "SCAN DESC"
        }
    }
}
