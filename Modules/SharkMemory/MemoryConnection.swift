import Foundation
@_spi(SharkDriver) import SharkORM

/// A connection to the memory engine. The writer keeps a working copy of the database for
/// the open transaction (and a copy per savepoint); a reader holds one snapshot.
final class MemoryConnection: DriverConnection {
    unowned let driver: MemoryDriver
    /// The reader's snapshot, or the writer's working copy while a transaction is open.
    private var state: MemoryDatabaseState?
    private let isWriter: Bool
    private var savepoints: [(name: String, state: MemoryDatabaseState)] = []
    private let builder = RowBuilder()
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
        isTracing = driver.isTracing
    }

    // MARK: Transactions

    func beginTransaction() throws {
        traced("BEGIN") { state = driver.snapshot() }
    }

    func commitTransaction() throws {
        guard let working = state else {
            throw SharkError.transactionMisuse(.noTransaction, "COMMIT without a transaction")
        }
        try traced("COMMIT") { try driver.publish(working) }
        state = nil
        savepoints.removeAll()
    }

    func rollbackTransaction() throws {
        traced("ROLLBACK") {
            state = nil
            savepoints.removeAll()
        }
    }

    func createSavepoint(_ name: String) throws {
        try traced("SAVEPOINT \(name)") { savepoints.append((name, try current())) }
    }

    func releaseSavepoint(_ name: String) throws {
        traced("RELEASE \(name)") {
            if let index = savepoints.lastIndex(where: { $0.name == name }) { savepoints.removeSubrange(index...) }
        }
    }

    func rollbackToSavepoint(_ name: String) throws {
        traced("ROLLBACK TO \(name)") {
            if let saved = savepoints.last(where: { $0.name == name }) { state = saved.state }
        }
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
        try write { database in
            if let table = database.table(named: schema.name) {
                guard table.schema != schema else { return }
                database.set(try table.migrated(to: schema))
            } else {
                var table = MemoryTable(schema: schema)
                // Indexes on an empty table cannot clash; build them through the table so the
                // same code path serves migrations.
                table = try table.migrated(to: schema)
                database.set(table)
            }
        }
    }

    // MARK: Writes

    func recordedSchemas() throws -> [EntitySchema] {
        try current().tables.map(\.schema).sorted { $0.name < $1.name }
    }

    func insert<Source: RowSource>(_ object: Source, schema: EntitySchema, includingKey: Bool) throws -> Int64? {
        var assigned: Int64?
        try modifyTable(schema.name) { table in
            builder.reset(count: schema.columns.count)
            try object._sharkWriteColumns(from: includingKey ? 0 : 1, to: builder, offset: 0)
            if !includingKey {
                let key = table.nextKey
                builder.write(key, at: 0)
                assigned = key
            }
            let row = builder.take()
            try traced(
                {
                    let names = schema.columns.map { "\"\($0.name)\"" }
                    return
                        "INSERT INTO \"\(schema.name)\" (\(names.joined(separator: ", "))) VALUES (\(placeholders(row.count)))"
                }, arguments: row, rows: 1
            ) {
                try table.insert(row)
            }
        }
        return assigned
    }

    func update<Source: RowSource>(_ object: Source, key: Value, columns: ColumnSet, schema: EntitySchema) throws
        -> Bool
    {
        try modifyTable(schema.name) { table in
            guard let old = table.row(forKey: key) else { return false }
            builder.load(old)
            let writer: any RowWriter = builder
            for column in columns { try object._sharkWrite(column: column, to: writer, at: column) }
            let new = builder.take()
            try traced(
                {
                    let sets = columns.map { "\"\(schema.columns[Int($0)].name)\" = ?" }
                    return
                        "UPDATE \"\(schema.name)\" SET \(sets.joined(separator: ", ")) WHERE \"\(schema.key.name)\" = ?"
                }, arguments: columns.map { new[Int($0)] } + [new[0]], rows: 1
            ) {
                try table.replace(old, with: new)
            }
            return true
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
        try modifyTable(schema.name) { table in
            traced({ "DELETE FROM \"\(schema.name)\" WHERE \"\(schema.key.name)\" = ?" }, arguments: [key], rows: 1) {
                table.delete(key: key)
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
        return driver.snapshot()
    }

    private func table(_ name: String, in database: MemoryDatabaseState) throws -> MemoryTable {
        guard let table = database.table(named: name) else { throw noTable(name) }
        return table
    }

    /// Runs a change on the working copy, or, outside a transaction, on a copy of the
    /// committed state that is published when the change succeeds (autocommit).
    private func write(_ change: (inout MemoryDatabaseState) throws -> Void) throws {
        guard isWriter else {
            throw SharkError.unsupported(.readOnlyConnection, "writing through a read-only connection")
        }
        if state != nil {
            try change(&state!)
        } else {
            var database = driver.snapshot()
            try change(&database)
            try driver.publish(database)
        }
    }

    /// Runs `change` on one table of the working state, in place: reaching it through a
    /// copy would make every persistent structure in it copy itself on the next write.
    private func modifyTable<T>(_ name: String, _ change: (inout MemoryTable) throws -> T) throws -> T {
        var result: T?
        try write { database in
            guard let position = database.position(of: name) else { throw noTable(name) }
            result = try database.modify(at: position, change)
        }
        return result!
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
        _ statement: () -> String, arguments: @autoclosure () -> [Value], rows: Int, _ body: () throws -> T
    ) rethrows -> T {
        guard isTracing else { return try body() }
        let start = ContinuousClock.now
        do {
            let result = try body()
            driver.tracer.record(
                statement: statement(), arguments: arguments(), duration: ContinuousClock.now - start, rows: rows)
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
/// The row is built in place and handed over whole: an update starts from the stored row
/// itself (one reference retained) and its first write copies it, and ``take()`` gives the
/// array away. A raw buffer copied into a new array at the end retained and released every
/// value once more, and building that array from the buffer went through the standard
/// library's unspecialized code: W4 (an update of every row) spent a tenth of its
/// instructions there.
final class RowBuilder: RowWriter {
    // Unchecked: a bulk insert writes millions of values, and a class's property pays a
    // dynamic exclusivity check on each; the builder belongs to one connection, which one
    // thread uses at a time.
    @exclusivity(unchecked) private var row: Row = []

    /// Starts a row of `count` NULLs.
    func reset(count: Int) {
        row = Row(repeating: .null, count: count)
    }

    /// Starts from an existing row.
    func load(_ row: Row) {
        self.row = row
    }

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
