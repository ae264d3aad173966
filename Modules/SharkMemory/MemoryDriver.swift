import Foundation
@_spi(SharkDriver) import SharkORM
import Synchronization

/// The pure-Swift in-memory engine: tables, indexes, transactions and the query AST evaluated
/// natively, with the same results as the SQLite driver. Not SQLite's `:memory:`.
///
/// The committed database is one value (``MemoryDatabaseState``) built from persistent
/// structures. A reader copies it (O(1)) and works on that snapshot without a lock; the
/// writer changes it in place and keeps an undo log, from which a reader that arrives during
/// a transaction rebuilds the state from before it (see ``MemoryVersions``). So readers never
/// block the writer and never see half a transaction.
///
/// Apps open it with `Store(.memory)`. A driver that keeps its data in the engine (a test
/// double, or a driver whose calls await a remote copy, as `Examples/RemoteDriver` does)
/// creates one with the tracer its own configuration hands it:
///
/// ```swift
/// @_spi(SharkDriver) import SharkMemory
/// @_spi(SharkDriver) import SharkORM
///
/// let inner = StoreConfiguration(driverName: "wrapped memory") { tracer in MemoryDriver(tracer: tracer) }
/// let store = try Store(inner)
/// print(store.driverName)   // "memory": the engine names itself
/// store.close()
/// ```
@_spi(SharkDriver) public final class MemoryDriver: IntegrityChecking, @unchecked Sendable {
    public let name = "memory"
    let tracer: Tracer
    /// The committed state and the open transaction's.
    let versions = MemoryVersions()
    private let visited = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)
    private var writerConnection: MemoryConnection!
    /// Reader connections no read holds (see `read(_:)`), under `readersLock`.
    private var idleReaders: [MemoryConnection] = []
    private let readersLock = NSLock()

    /// Whether the tracer listens, asked once: reading it copies its handlers and logger.
    let isTracing: Bool

    public init(tracer: Tracer) {
        self.tracer = tracer
        isTracing = tracer.isEnabled
        writerConnection = MemoryConnection(driver: self, isWriter: true)
    }

    public var writer: any DriverConnection { writerConnection }

    public func read<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        guard !closed.load(ordering: .acquiring) else { throw SharkError.closed }
        // Reader connections are reused: making and freeing one cost a lookup by key about a
        // tenth of its instructions. Each is used by one read at a time and forgets its
        // snapshot when the read ends, so the next read sees what was committed since.
        let connection =
            readersLock.withLock { idleReaders.popLast() } ?? MemoryConnection(driver: self, isWriter: false)
        defer {
            connection.endReuse()
            readersLock.withLock {
                if idleReaders.count < Self.idleReaderLimit { idleReaders.append(connection) }
            }
        }
        return try body(connection)
    }

    /// Reader connections kept for reuse: as many as threads usually read at once.
    private static let idleReaderLimit = 8

    public func readRow(withKey key: Value, schema: EntitySchema, _ body: (any RowReader) throws -> Void) throws {
        // One statement needs no connection: the committed state is one value, read as is.
        try lookUp(key, schema: schema, in: try readerSnapshot(), isTracing: isTracing, body)
    }

    /// Calls `body` with the row of `schema`'s entity whose key is `key` in `database`, if
    /// there is one: a lookup by key, on a connection or without one.
    func lookUp(
        _ key: Value, schema: EntitySchema, in database: MemoryDatabaseState, isTracing: Bool,
        _ body: (any RowReader) throws -> Void
    ) throws {
        // Only the table's rows are taken out of the database, not the whole table (whose
        // copy retains and releases each of its parts: a tenth of a lookup).
        guard let position = database.position(of: schema.name) else { throw Self.noTable(schema.name) }
        let start = isTracing ? ContinuousClock.now : nil
        let row = MemoryTable.row(forKey: key, in: database.rows(at: position))
        countVisits(row == nil ? 0 : 1)
        if let start {
            tracer.record(
                statement: "SELECT * FROM \"\(schema.name)\" WHERE \"\(schema.key.name)\" = ? -- key lookup",
                arguments: [key], duration: ContinuousClock.now - start, rows: row == nil ? 0 : 1)
        }
        if let row { try body(ValueRowReader(row)) }
    }

    /// The error SQLite gives for a table that is not there.
    static func noTable(_ name: String) -> SharkError {
        .driver(code: 1, message: "no such table: \(name)", sql: nil)
    }

    /// The committed state, for a reader's first query; the store may have closed since the
    /// read began.
    func readerSnapshot() throws -> MemoryDatabaseState {
        guard !closed.load(ordering: .acquiring) else { throw SharkError.closed }
        return snapshot()
    }

    public func close() {
        closed.store(true, ordering: .releasing)
        versions.close()
    }

    public func checkIntegrity() throws -> [String] {
        guard !closed.load(ordering: .acquiring) else { throw SharkError.closed }
        return snapshot().tables.flatMap { $0.integrityProblems() }
    }

    /// How many stored rows queries have examined so far: what an index saves shows here.
    ///
    /// ```swift
    /// let before = driver.rowsVisited
    /// _ = try Person.query(in: store).where(\.age == 30).fetch()
    /// print(driver.rowsVisited - before)   // the matching rows only, with an index on age
    /// ```
    package var rowsVisited: Int { visited.load(ordering: .relaxed) }

    func countVisits(_ count: Int) { visited.add(count, ordering: .relaxed) }

    /// The committed state (an O(1) copy).
    func snapshot() -> MemoryDatabaseState { versions.snapshot() }

    /// Commits the open transaction, unless the store closed meanwhile.
    func commit() throws {
        guard !closed.load(ordering: .acquiring) else { throw SharkError.closed }
        versions.commit()
    }
}

extension StoreConfiguration {
    /// A store held in memory by SharkORM's own engine: for tests, previews, caches and
    /// anything that must be fast and need not last. Its contents go with the store.
    ///
    /// ```swift
    /// let scratch = try Store(.memory)
    /// ```
    public static var memory: StoreConfiguration {
        StoreConfiguration(driverName: "memory") { tracer in MemoryDriver(tracer: tracer) }
    }
}
