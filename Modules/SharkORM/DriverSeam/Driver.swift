/// A storage engine behind a ``Store``: the only thing the core knows about a backend.
///
/// A driver hands out one writer connection, used by the store with the writer held (so
/// writes are serialized), and runs reads on connections of its own that see a consistent
/// committed snapshot and never wait for the writer.
///
/// The protocol speaks in intents over an ``EntitySchema`` — apply this schema, insert this
/// row, update these columns of the row with this key, read the rows this query matches — not
/// in SQL: the SQL drivers compile each intent to SQL, the memory engine carries it out
/// itself. Raw SQL and integrity checks are capabilities a driver may add
/// (``RawSQLConnection``, ``IntegrityChecking``). Failures are ``SharkError``s; an engine's
/// own failure is ``SharkError/driver(code:message:sql:)`` with the engine's code and message.
///
/// To add a backend, implement ``Driver`` and ``DriverConnection``, offer a
/// ``StoreConfiguration`` factory for it (as `SharkSQLite` does with `.sqlite(path:)`), and add
/// it to the conformance suite. docs/architecture.md walks through the memory driver as the
/// worked example.
@_spi(SharkDriver) public protocol Driver: AnyObject, Sendable {
    /// A short name for messages and tests: "sqlite", "memory", "sqlcipher".
    var name: String { get }
    /// The connection that performs every write. Only used with the store's writer held.
    var writer: any DriverConnection { get }
    /// Runs `body` on a connection that sees the last committed state.
    func read<T>(_ body: (any DriverConnection) throws -> T) throws -> T
    /// Closes every connection. Further use fails with ``SharkError/closed``.
    func close()
    /// Whether the storage was opened read-only, so every write fails. False by default.
    var isReadOnly: Bool { get }
    /// How many keys the store puts in one `isIn` read when it reads rows by key in bulk
    /// (sync reads thousands per transaction): a list length the engine handles well. Any
    /// length reads the same rows; only the number of reads changes, never what a store
    /// accepts. The default, 500, suits SQLite (whose older versions bind at most 999
    /// parameters) and the memory engine.
    var keysPerRead: Int { get }
    /// Whether a read of one row by key may run on the writer connection while no write is
    /// under way (the store then holds the writer for it), because the writer answers it
    /// from a warmer cache than a reader. SQLite drops a reader's whole page cache whenever
    /// another connection has committed, so the first lookup after each commit reads (and
    /// SQLCipher decrypts) its pages again; the writer, which made the commit, still holds
    /// them. False by default: the writer reads only inside transactions.
    var readsByKeyOnIdleWriter: Bool { get }
    /// Calls `body` with the row of `schema`'s entity whose key is `key`, if there is one, as
    /// committed last: what a lookup by key does outside any transaction. The default reads
    /// it on a reader connection (``read(_:)`` with ``ReadRequest/key(_:)``); a driver that
    /// can answer it without lending a connection (the memory engine, whose committed state
    /// is one value) does so.
    func readRow(withKey key: Value, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws
    /// The log through which stores that write the same database hear of each other's
    /// commits (``SharedChangeLog``); nil, the default, for storage only this store writes.
    var sharedChangeLog: (any SharedChangeLog)? { get }
}

@_spi(SharkDriver) extension Driver {
    public var isReadOnly: Bool { false }

    public var readsByKeyOnIdleWriter: Bool { false }

    public var keysPerRead: Int { 500 }

    public var sharedChangeLog: (any SharedChangeLog)? { nil }

    public func readRow(withKey key: Value, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws {
        try read { connection in try connection.read(.key(key), schema: schema, body) }
    }
}

/// One connection to a driver's storage. Not thread-safe: a store uses each from one thread
/// at a time.
///
/// Every method throws ``SharkError``.
@_spi(SharkDriver) public protocol DriverConnection: AnyObject {
    /// Creates or migrates the storage of an entity to match `schema` (writer only).
    func apply(_ schema: EntitySchema) throws
    /// The schemas applied to this storage so far, as recorded: what a caller without the
    /// app's model types reads and writes rows by.
    func recordedSchemas() throws -> [EntitySchema]

    func beginTransaction() throws
    func commitTransaction() throws
    func rollbackTransaction() throws
    func createSavepoint(_ name: String) throws
    func releaseSavepoint(_ name: String) throws
    func rollbackToSavepoint(_ name: String) throws
    /// Starts a read that sees one state until ``endRead()``, however many queries it runs
    /// (readers only: a snapshot for the memory engine, a deferred transaction for SQL).
    func beginRead() throws
    /// Ends what ``beginRead()`` started.
    func endRead() throws

    /// Inserts the row `source` holds. When `includingKey` is false the key column is left to
    /// the engine, which returns the key it assigned; otherwise returns nil.
    func insert<Source: RowSource>(_ source: Source, schema: EntitySchema, includingKey: Bool) throws -> Int64?
    /// Writes the given columns of `source` to the row whose key is `key`. Returns false when
    /// there is no such row. A bulk update passes the same column set object after object:
    /// worth keying prepared work by.
    func update<Source: RowSource>(_ source: Source, key: Value, columns: ColumnSet, schema: EntitySchema) throws
        -> Bool
    /// Deletes the row with `key`. Returns false when there was none.
    func delete(key: Value, schema: EntitySchema) throws -> Bool

    /// Inserts one row per source, in order: what a bulk commit calls, so that an engine can
    /// write them in one tight loop. Returns the keys the engine assigned, one per source,
    /// when `includingKey` is false, and none otherwise. A default loops over
    /// ``insert(_:schema:includingKey:)``.
    func insert<Source: RowSource>(_ sources: [Source], schema: EntitySchema, includingKey: Bool) throws -> [Int64]
    /// Writes the same `columns` of each source to the row whose key is the matching element
    /// of `keys`. Returns the position of the first source that has no row (nothing after it
    /// is written), or nil. A default loops over ``update(_:key:columns:schema:)``.
    func update<Source: RowSource>(_ sources: [Source], keys: [Value], columns: ColumnSet, schema: EntitySchema) throws
        -> Int?

    /// Sets every assignment on each row whose key is in `keys`, its expression evaluated by
    /// the engine over the row as it was before this change (`SET a = a + 1, b = a`), each
    /// result checked against its column first (`ColumnSchema.storedValue(_:computed:)`):
    /// one that does not fit fails the call with that error. Keys with no row are skipped.
    /// (The store runs the call in a savepoint, so a failure changes nothing.)
    func updateAll(keys: [Value], setting assignments: [ColumnAssignment], schema: EntitySchema) throws

    /// Calls `body` once per row `request` reads, in order. The row reader is only valid
    /// during the call; its columns are the schema's, in schema order.
    func read(_ request: ReadRequest, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws
    /// Counts the rows that match `query` (limit and offset applied).
    func count(_ query: EntityQuery, schema: EntitySchema) throws -> Int
    /// Computes `function` of `expression` over the rows that match `query` (its window
    /// taken in its order), by the rules of ``AggregateFunction`` (sums and averages with the
    /// core's `ExactSum`): NULL when no non-NULL value, ``SharkError/invalidValue(_:)`` when an
    /// integer sum overflows.
    func aggregate(
        _ function: AggregateFunction, of expression: QueryExpression, _ query: EntityQuery,
        schema: EntitySchema
    ) throws -> Value
    /// The value of `expression` for every row that matches `query` (its window taken in its
    /// order), in no particular order: for what the engine cannot compute itself (exact
    /// decimal sums).
    func values(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws -> [Value]
    /// The distinct values of `expression` over the rows that match `query` (its window taken
    /// in its order), ascending in the order of values (docs/values.md: NULL, then numbers by
    /// value, then text byte by byte, then blobs); values that compare as equal there (`1` and
    /// `1.0`) count once.
    func distinctValues(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws
        -> [Value]

    /// Called on the writer, between transactions, at a moment no live query reads (every
    /// 64 commits while live queries observe): upkeep that a steady stream of readers would
    /// otherwise hold off. The SQLite drivers fold the write-ahead log back into the database
    /// so that it starts over; the default does nothing.
    func performIdleMaintenance() throws

    /// The schema of a table (or view) of the file that SharkORM holds no record of, read
    /// from the engine itself, so that row calls and tools read databases other programs
    /// made; nil when there is no such table. Its key is the table's primary key (the first
    /// column of a composite one), else the engine's own row identity (SQLite's `rowid`), else,
    /// for a view, its first column. Logical types are unknown: values read as stored. The default: nil (an
    /// engine whose every table SharkORM made).
    func unrecordedSchema(of table: String) throws -> EntitySchema?

    /// A number that changes whenever the storage's schema does, whichever process or
    /// connection changed it (SQLite's `schema_version`): the store reloads what it keeps of the recorded schemas
    /// when it differs. Nil (the default) for an engine no other process can change, whose
    /// store hears of every change it makes.
    func schemaGeneration() throws -> Int64?
}

@_spi(SharkDriver) extension DriverConnection {
    public func performIdleMaintenance() throws {}

    public func unrecordedSchema(of table: String) throws -> EntitySchema? { nil }

    public func schemaGeneration() throws -> Int64? { nil }

    public func insert<Source: RowSource>(_ sources: [Source], schema: EntitySchema, includingKey: Bool) throws
        -> [Int64]
    {
        var keys: [Int64] = []
        if !includingKey { keys.reserveCapacity(sources.count) }
        for position in 0..<sources.count {
            let key = try insert(sources[position], schema: schema, includingKey: includingKey)
            if !includingKey { keys.append(key ?? 0) }
        }
        return keys
    }

    public func update<Source: RowSource>(
        _ sources: [Source], keys: [Value], columns: ColumnSet, schema: EntitySchema
    ) throws -> Int? {
        for position in 0..<sources.count
        where try !update(sources[position], key: keys[position], columns: columns, schema: schema) {
            return position
        }
        return nil
    }
}

/// One column an `updateAll` sets, and the expression that computes its new value.
@_spi(SharkDriver) public struct ColumnAssignment: Sendable, Hashable {
    /// The column's position in the schema (never 0, the key).
    public var column: Int
    public var value: QueryExpression

    public init(column: Int, value: QueryExpression) {
        self.column = column
        self.value = value
    }
}

/// What a read asks a driver for.
@_spi(SharkDriver) public enum ReadRequest: Sendable, Hashable {
    /// The row whose key is this value (none or one).
    case key(Value)
    /// The rows a query matches, in its order.
    case query(EntityQuery)
}

/// Where the column values of a row to write come from: generated model code (every `@Model`
/// class is one, writing straight from its properties, allocation-free), or a `ValueRow` of
/// plain values for callers without the app's types.
public protocol RowSource {
    /// Writes the value of the column at schema position `column` into `row` at `position`.
    func _sharkWrite(column: Int32, to row: any RowWriter, at position: Int32) throws(SharkError)
    /// Writes every column from schema position `first` to the last, column `c` at position
    /// `c + offset`: a whole row in one call, as an insert needs, rather than one call (and
    /// one dispatch on the column) per column.
    func _sharkWriteColumns(from first: Int32, to row: any RowWriter, offset: Int32) throws(SharkError)
}

@_spi(SharkDriver) extension ValueRow: RowSource {
    public func _sharkWrite(column: Int32, to row: any RowWriter, at position: Int32) throws(SharkError) {
        row.write(values[Int(column)], at: position)
    }

    public func _sharkWriteColumns(from first: Int32, to row: any RowWriter, offset: Int32) throws(SharkError) {
        for column in Int(max(0, first))..<values.count { row.write(values[column], at: Int32(column) + offset) }
    }
}

/// A driver connection that runs raw SQL: the escape hatch of the SQL drivers.
@_spi(SharkDriver) public protocol RawSQLConnection: DriverConnection {
    /// Runs one statement with bound arguments, on the writer. A statement that would write
    /// one of the `protected` entities is refused before it runs; the result names the
    /// entities the statement writes. Only the store's write stage calls it.
    func executeRaw(_ sql: String, arguments: [Value], protecting protected: Set<String>) throws -> RawResult
    /// Runs one statement that only reads, with bound arguments: one that may change
    /// anything (a write, DDL, a PRAGMA that sets) is refused with
    /// ``SharkError/invalidQuery(_:)`` before it runs. What raw reads outside a write
    /// transaction call.
    func readRaw(_ sql: String, arguments: [Value]) throws -> RawResult
}

/// A driver that can check its storage for damage (see ``Store/checkIntegrity()``).
@_spi(SharkDriver) public protocol IntegrityChecking: Driver {
    /// One description per problem found; none when intact.
    func checkIntegrity() throws -> [String]
}

/// What a raw SQL statement returned.
public struct RawResult: Sendable, Hashable {
    /// The result column names.
    public var columns: [String]
    /// The rows, each with one value per column.
    public var rows: [[Value]]
    /// Rows inserted, updated or deleted (0 for queries).
    public var changes: Int
    /// The entities (tables) the statement writes, whether or not rows changed.
    public var writtenEntities: Set<String>

    public init(columns: [String], rows: [[Value]], changes: Int, writtenEntities: Set<String> = []) {
        self.columns = columns
        self.rows = rows
        self.changes = changes
        self.writtenEntities = writtenEntities
    }
}
