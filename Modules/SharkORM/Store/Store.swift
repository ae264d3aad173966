import Foundation
import Synchronization

/// A database: the entry point for committing, removing, fetching and observing model objects.
///
/// A store opens one driver, chosen by its configuration, and is safe to share between
/// threads and tasks: writes are serialized, reads run concurrently on their own snapshot.
/// The schema of each model is created or migrated automatically the first time the store
/// meets it.
///
/// ```swift
/// let store = try Store(.sqlite(path: "app.sqlite"))
/// let person = Person()
/// person.name = "Ada"
/// try store.commit(person)
/// let adults = try Person.query(in: store).where(\.age >= 18).fetch()
/// ```
///
/// Every operation has a blocking form, which runs on the calling thread, and an `async` form,
/// which runs on the store's own threads and never blocks Swift's cooperative pool:
///
/// ```swift
/// let adults = try await Person.query(in: store).where(\.age >= 18).fetch()
/// try await store.write { tx in try tx.commit(Person(name: "Grace")) }
/// ```
///
/// Each fetch makes new objects: a store hands out no shared instances (see
/// docs/architecture.md, "Identity"). Objects are not `Sendable`; an async fetch returns its
/// objects as `sending`, so they belong to the caller's isolation (the main actor, say) from
/// then on.
public final class Store: Sendable {
    /// The store used by `person.commit()` and `Person.query()` when an object has none of
    /// its own. Set it once at start-up.
    ///
    /// ```swift
    /// Store.default = try Store(.sqlite(path: "app.sqlite"))
    /// try Person(name: "Ada").commit()
    /// ```
    public static var `default`: Store? {
        get { defaultStore.withLock { $0 } }
        set { defaultStore.withLock { $0 = newValue } }
    }
    private static let defaultStore = Mutex<Store?>(nil)

    /// The driver's short name ("sqlite", "memory", …).
    public var driverName: String { driver.name }

    /// Whether the store was opened read-only (`.sqlite(path:readOnly:)`): it reads, and every
    /// write fails with ``SharkError/readOnly(path:reason:)``.
    ///
    /// ```swift
    /// let archive = try Store(.sqlite(path: "archive.sqlite", readOnly: true))
    /// assert(archive.isReadOnly)
    /// ```
    public var isReadOnly: Bool { driver.isReadOnly }

    /// The driver behind this store. Writing through it would skip hooks, rollback
    /// restoration and observers: for drivers and tests of this package only.
    package let driver: any Driver
    /// Held by whoever uses the writer connection: one outermost transaction at a time.
    let writerLock = NSLock()
    /// The open transaction's levels; only touched while holding `writerLock`.
    @usableFromInline let transactions: TransactionStack
    /// Where every write reaches the driver and is recorded (see `WriteStage`).
    @usableFromInline let writeStage: WriteStage
    let observers = Mutex<[any TransactionObserver]>([])
    /// Who listens to commit events, and the commit counter.
    let eventHub = EventHub()
    /// Live-query computations run through it, never more at once than it admits.
    let observerGate = ObserverGate()
    /// The threads of the async API: one for writes, a few for reads (and, behind those, a
    /// few of lower priority for the reads of live queries).
    let writerThread: StoreWorkers
    let readerThreads: StoreWorkers
    private let schemas = Mutex<[ObjectIdentifier: EntitySchema]>([:])
    /// The model class prepared for each entity name, so that delete rules can run the hooks
    /// of the objects they remove.
    let modelTypes = Mutex<[String: any Model.Type]>([:])
    /// The recorded schemas and the relationship columns that refer to each entity; nil
    /// until first needed, and again after any schema change (see `SchemaCatalog`).
    let catalog = Mutex<SchemaCatalog?>(nil)
    private let isClosed = Atomic<Bool>(false)
    /// The driver's log of commits shared with other stores of the same database, if any.
    let sharedChangeLog: (any SharedChangeLog)?
    /// Whether models older than the database's may migrate it back
    /// (``StoreConfiguration/acceptingOlderModels()``).
    let acceptsOlderModels: Bool
    /// The migrations this store made: it may undo them, as long as nobody migrated the entity
    /// further (see `SchemaHistory`).
    let ownMigrations = Mutex<Set<SchemaHistory.Migration>>([])

    /// Opens a store with the driver and options of `configuration`.
    public init(_ configuration: StoreConfiguration) throws {
        driver = try configuration.openDriver()
        transactions = TransactionStack()
        writeStage = WriteStage(driver: driver, transactions: transactions)
        writerThread = StoreWorkers(name: "Shark writer", width: 1)
        readerThreads = StoreWorkers(
            name: "Shark reader", width: 4,
            observationWorkers: StoreWorkers(name: "Shark watcher", width: 4, priority: .background))
        sharedChangeLog = driver.sharedChangeLog
        acceptsOlderModels = configuration.acceptsOlderModels
        sharedChangeLog?.start(reporting: RemoteCommitSink(hub: eventHub))
    }

    deinit {
        writerThread.stop()
        readerThreads.stop()
        driver.close()
        eventHub.close()  // a store released without `close()` still ends its event sequences
    }

    /// Closes the store's connections, once the transaction in progress (if any) ends. Using
    /// the store afterwards throws ``SharkError/closed``.
    public func close() {
        writerLock.withLock {
            isClosed.store(true, ordering: .releasing)
            driver.close()
        }
        eventHub.close()
        writerThread.stop()
        readerThreads.stop()
    }

    /// Creates or migrates the storage of `M` now, rather than on its first use, and returns
    /// the schema as applied. Throws what applying it would throw later (a lossy change, a
    /// reserved name, a table whose data does not fit).
    ///
    /// ```swift
    /// let schema = try store.prepare(Person.self)
    /// print(schema.columns.map(\.name))
    /// ```
    @discardableResult
    public func prepare<M: Model>(_ type: M.Type) throws -> EntitySchema {
        try preparedSchema(for: type)
    }

    /// The schema of `M` as applied to this store, applying it first if needed.
    @usableFromInline
    func preparedSchema<M: Model>(for type: M.Type) throws -> EntitySchema {
        let id = ObjectIdentifier(type)
        if let schema = schemas.withLock({ $0[id] }) { return schema }
        var step = SchemaHistory.Step.noMigration
        let (schema, applied) = try withWriterAccess { writer -> (EntitySchema, Bool) in
            if let schema = schemas.withLock({ $0[id] }) { return (schema, false) }
            let schema = try M.validatedSchema()
            let folded = EntitySchema.folded(schema.name)
            if let clash = schemas.withLock({
                $0.values.first { $0.name != schema.name && EntitySchema.folded($0.name) == folded }
            }) {
                throw SharkError.invalidModel(
                    entity: schema.name,
                    reason: "the entity \(clash.name) of this store differs only in case, and entity names are "
                        + "case-insensitive in storage")
            }
            if !isReadOnly {
                step = try SchemaHistory.step(
                    applying: schema, through: writer, ownMigrations: ownMigrations.withLock { $0 },
                    acceptingOlderModels: acceptsOlderModels)
            }
            try writer.apply(schema)
            modelTypes.withLock { $0[schema.name] = M.self }
            invalidateSchemaCatalog()
            schemas.withLock { applied in
                // Another model class stored under the same entity name is no longer in step
                // with the table: it re-applies (migrates back) the next time it is used.
                applied = applied.filter { $0.value.name != schema.name }
                applied[id] = schema
            }
            if !transactions.isEmpty {
                // DDL inside a transaction is undone by its rollback; forget it then too.
                transactions.onRollback { [weak self] in
                    _ = self?.schemas.withLock { $0.removeValue(forKey: id) }
                    self?.invalidateSchemaCatalog()
                }
            }
            return (schema, true)
        }
        if case .migration(let migration, _, _) = step {
            ownMigrations.withLock { _ = $0.insert(migration) }
            // After the migration, not in its transaction: each driver migrates in a
            // transaction of its own (PostgreSQL's at READ COMMITTED, so that it sees another
            // process's migration once it holds the lock). The record is a safeguard, not part
            // of the migration: one that fails (the database busy, the store closing) leaves
            // that older model unrefused, as before there were records, and the model usable.
            try? write { tx in try SchemaHistory.record(step, in: tx) }
        }
        // The models its relationships refer to get their tables too (outside the writer's
        // lock, which is not reentrant): paths and prefetches read them from the first query.
        // One that cannot be prepared says so when it is used itself.
        if applied {
            for column in schema.columns {
                guard let target = column.relationship?.target, let related = ModelTypes.type(named: target) else {
                    continue
                }
                _ = try? preparedSchema(for: related)
            }
        }
        return schema
    }

    /// The schema of `entity` as this store knows it: its model's, when one was prepared or a
    /// relationship named it, or else as recorded; nil when none.
    func knownSchema(of entity: String) -> EntitySchema? {
        if let prepared = schemas.withLock({ $0.values.first { $0.name == entity } }) { return prepared }
        if let type = modelTypes.withLock({ $0[entity] }) ?? ModelTypes.type(named: entity) { return type.schema }
        return try? recordedSchema(of: entity)
    }

    func checkOpen() throws(SharkError) {
        if isClosed.load(ordering: .acquiring) { throw SharkError.closed }
    }

    /// The transaction of this store open around the calling code, if any.
    @usableFromInline
    func activeTransaction() throws(SharkError) -> WriteTransaction? {
        try TransactionScope.current(WriteTransaction.self, of: self)
    }

    /// Runs `body` with the writer connection to itself: inside the open transaction of this
    /// store when the calling code has one, holding the writer lock otherwise. For operations
    /// that must not overlap a write (rekeying an encrypted database, say).
    package func withWriterAccess<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        if try activeTransaction() != nil {
            try checkOpen()
            return try body(driver.writer)
        }
        return try writerLock.withLock {
            try checkOpen()
            return try body(driver.writer)
        }
    }

    /// Registers an observer of every write transaction (see ``TransactionObserver``). It
    /// takes part from the next transaction on.
    ///
    /// ```swift
    /// store.addTransactionObserver(AuditLog())
    /// ```
    public func addTransactionObserver(_ observer: any TransactionObserver) {
        observers.withLock { $0.append(observer) }
    }

    /// Stops `observer` from taking part in later transactions.
    public func removeTransactionObserver(_ observer: any TransactionObserver) {
        observers.withLock { $0.removeAll { $0 === observer } }
    }

    var hasObservers: Bool { observers.withLock { !$0.isEmpty } }

    /// Whether the next transaction must record its changes: for observers, for events, or
    /// for the other stores of a shared database.
    var recordsChanges: Bool { eventHub.hasListeners || hasObservers || sharedChangeLog != nil }

    /// Entities raw SQL must not write, gathered from the observers.
    var protectedEntities: Set<String> {
        observers.withLock { $0.reduce(into: Set<String>()) { $0.formUnion($1.protectedEntities) } }
    }
}
