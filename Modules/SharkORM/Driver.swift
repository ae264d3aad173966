/// A storage engine behind a ``Store``: the only thing the core knows about a backend.
///
/// A driver hands out one writer connection, used by the store under its write lock (so
/// writes are serialized), and runs reads on connections of its own that see a consistent
/// committed snapshot and never wait for the writer.
///
/// To add a backend, implement ``Driver`` and ``DriverConnection`` and offer a
/// ``StoreConfiguration`` factory for it, as `SharkSQLite` does with `.sqlite(path:)`; then add
/// the driver to the conformance suite. See docs/architecture.md.
public protocol Driver: AnyObject, Sendable {
    /// A short name for messages and tests: "sqlite", "memory", "sqlcipher".
    var name: String { get }
    /// The connection that performs every write. Only used under the store's write lock.
    var writer: any DriverConnection { get }
    /// Runs `body` on a connection that sees the last committed state.
    func read<T>(_ body: (any DriverConnection) throws -> T) throws -> T
    /// Closes every connection. Further use fails with ``SharkError/closed``.
    func close()
    /// Checks the stored data for damage the engine can detect, returning one description per
    /// problem found (none when intact). SQL drivers run SQLite's `integrity_check`; the memory
    /// engine checks its indexes against its rows. See ``Store/checkIntegrity()``.
    func checkIntegrity() throws -> [String]
}

/// One connection to a driver's storage. Not thread-safe: a store uses each from one thread
/// at a time.
///
/// Every method throws ``SharkError``.
public protocol DriverConnection: AnyObject {
    /// Creates or migrates the storage of an entity to match `schema` (writer only).
    func apply(_ schema: EntitySchema) throws

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

    /// Inserts `object`. When `includingKey` is false the key column is left to the engine,
    /// which returns the key it assigned; otherwise returns nil.
    func insert<M: Model>(_ object: M, schema: EntitySchema, includingKey: Bool) throws -> Int64?
    /// Writes the given columns of `object` to its row. Returns false when no row has its key.
    func update<M: Model>(_ object: M, columns: [Int32], schema: EntitySchema) throws -> Bool
    /// Deletes the row with `key`. Returns false when there was none.
    func delete(key: Value, schema: EntitySchema) throws -> Bool

    /// Runs `query` and calls `body` once per matching row, in order. The row reader is only
    /// valid during the call; its columns are the schema's, in schema order.
    func select(_ query: QueryDescription, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws
    /// Counts the rows that match `query` (limit and offset applied).
    func count(_ query: QueryDescription, schema: EntitySchema) throws -> Int

    /// Runs raw SQL with bound arguments, returning its rows and how many rows it changed.
    /// Drivers without SQL throw ``SharkError/unsupported(_:)``.
    func executeRaw(_ sql: String, arguments: [Value]) throws -> RawResult
}

/// What a raw SQL statement returned.
public struct RawResult: Sendable, Hashable {
    /// The result column names.
    public var columns: [String]
    /// The rows, each with one value per column.
    public var rows: [[Value]]
    /// Rows inserted, updated or deleted (0 for queries).
    public var changes: Int

    public init(columns: [String], rows: [[Value]], changes: Int) {
        self.columns = columns
        self.rows = rows
        self.changes = changes
    }
}
