/// A write transaction of a store, as a value the code can see: every write through it
/// commits together when its body returns, or none does when the body throws.
///
/// ```swift
/// try store.write { tx in
///     try tx.commit(order)
///     let stock = try tx.find(Stock.self, id: order.item)!   // reads see the writes before
///     stock.count -= order.quantity
///     try tx.commit(stock)
///     try tx.transaction { inner in                          // a savepoint
///         try inner.commit(AuditEntry(order))
///     }
/// }
/// ```
///
/// Its body runs synchronously, holding the store's writer: on the calling thread for
/// `Store.write(_:)` (so a `@MainActor` body stays on the main
/// actor), on the store's writer thread for the `async` form. Code inside the body that is not
/// handed the transaction finds it anyway: `person.commit()`, `store.commit(person)` and
/// queries join it through a task-local value.
///
/// A transaction belongs to its body. Used from another thread or task while the body runs
/// (a `Task {}` started inside inherits the task-local), or after the body returned, every
/// method throws ``SharkError/transactionMisuse(_:)`` rather than touching the writer
/// concurrently; that check is what makes the type safe to pass around (`Sendable`).
public final class WriteTransaction: ScopedTransaction, @unchecked Sendable {
    /// The store this transaction writes to.
    public let store: Store
    /// Whether this is a savepoint inside another transaction.
    public let isSavepoint: Bool
    let confinement = Confinement()
    /// The driver's writer connection, looked up once rather than for every object written:
    /// for reads inside the transaction (writes go through ``stage``).
    let writer: any DriverConnection
    /// The write stage, through which every write of this transaction reaches the driver.
    @usableFromInline let stage: WriteStage

    init(store: Store, isSavepoint: Bool) {
        self.store = store
        self.isSavepoint = isSavepoint
        self.stage = store.writeStage
        self.writer = stage.writer
    }

    func usability() -> SharkError? { confinement.problem("transaction") }

    /// Throws unless this transaction may be used here and now.
    @usableFromInline
    func checkUsable() throws(SharkError) {
        if let problem = usability() { throw problem }
    }

    /// Whether the body is still running.
    public var isActive: Bool { confinement.isActive }

    // MARK: Writes

    /// Inserts `object`, or writes its changed columns if it is already stored (see
    /// ``Store/commit(_:)-(M)``).
    public func commit<M: Model>(_ object: M) throws {
        try checkUsable()
        let schema = try store.preparedSchema(for: M.self)
        try write(object, schema: schema)
    }

    /// Commits several objects in a savepoint: all of them, or none.
    @inlinable
    public func commit<M: Model>(_ objects: some Sequence<M>) throws {
        try checkUsable()
        let schema = try store.preparedSchema(for: M.self)
        try transaction { savepoint in try savepoint.writeAll(objects, schema: schema) }
    }

    /// Inserts `object` or overwrites the stored row with its key (see ``Store/upsert(_:)``).
    public func upsert<M: Model>(_ object: M) throws {
        try checkUsable()
        let schema = try store.preparedSchema(for: M.self)
        try upsert(object, schema: schema)
    }

    /// Removes `object` (see ``Store/remove(_:)``).
    public func remove<M: Model>(_ object: M) throws {
        try checkUsable()
        let schema = try store.preparedSchema(for: M.self)
        try delete(object, schema: schema)
    }

    /// Runs `body` in a savepoint: its writes are undone, and its error rethrown, when it
    /// throws, while the enclosing transaction goes on.
    public func transaction<T>(_ body: (WriteTransaction) throws -> T) throws -> T {
        try checkUsable()
        return try store.runSavepoint(inside: self, body)
    }

    // MARK: Reads, which see this transaction's writes

    /// The object of type `M` whose key is `id`, as this transaction sees it.
    public func find<M: Model>(_ type: M.Type, id: M.Key) throws -> M? {
        try checkUsable()
        return try store.find(type, id: id)
    }

    /// Every object `query` matches, as this transaction sees it.
    public func fetch<M: Model>(_ query: Query<M>) throws -> [M] {
        try checkUsable()
        return try query.fetch()
    }

    /// How many objects `query` matches, as this transaction sees it.
    public func count<M: Model>(_ query: Query<M>) throws -> Int {
        try checkUsable()
        return try query.count()
    }
}
