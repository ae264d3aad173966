import Foundation
@_spi(SharkDriver) import SharkORM
import Synchronization

/// The pure-Swift in-memory engine: tables, indexes, transactions and the query AST evaluated
/// natively, with the same results as the SQLite driver. Not SQLite's `:memory:`.
///
/// The committed database is one value (``MemoryDatabaseState``) built from persistent
/// structures. A reader copies it (O(1)) and works on that snapshot without a lock; the
/// writer works on its own copy and publishes it on commit. So readers never block the writer
/// and never see half a transaction.
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
    private let lock = NSLock()
    private var committed = MemoryDatabaseState()
    private let visited = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)
    private var writerConnection: MemoryConnection!

    public init(tracer: Tracer) {
        self.tracer = tracer
        writerConnection = MemoryConnection(driver: self, isWriter: true)
    }

    public var writer: any DriverConnection { writerConnection }

    public func read<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        guard !closed.load(ordering: .acquiring) else { throw SharkError.closed }
        return try body(MemoryConnection(driver: self, isWriter: false))
    }

    /// The committed state, for a reader's first query; the store may have closed since the
    /// read began.
    func readerSnapshot() throws -> MemoryDatabaseState {
        guard !closed.load(ordering: .acquiring) else { throw SharkError.closed }
        return snapshot()
    }

    public func close() {
        closed.store(true, ordering: .releasing)
        lock.withLock { committed = MemoryDatabaseState() }
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
    func snapshot() -> MemoryDatabaseState { lock.withLock { committed } }

    /// Makes `state` the committed state.
    func publish(_ state: MemoryDatabaseState) throws {
        guard !closed.load(ordering: .acquiring) else { throw SharkError.closed }
        lock.withLock { committed = state }
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
