import Foundation
import Synchronization

/// A database: the entry point for committing, removing, fetching and observing model objects.
///
/// A store opens one driver, chosen by its configuration, and is safe to share between
/// threads: writes are serialized, reads run concurrently on their own snapshot. The schema
/// of each model is created or migrated automatically the first time the store meets it.
///
/// ```swift
/// let store = try Store(.sqlite(path: "app.sqlite"))
/// let person = Person()
/// person.name = "Ada"
/// try store.commit(person)
/// let adults = try Person.query(in: store).where(\.age >= 18).fetch()
/// ```
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

    /// The driver behind this store, for driver-specific operations and statistics.
    ///
    /// ```swift
    /// if let memory = store.driver as? MemoryDriver { print(memory.rowsVisited) }
    /// ```
    public let driver: any Driver
    let writeLock = WriterLock()
    let transactions = TransactionStack()
    private let schemas = Mutex<[ObjectIdentifier: EntitySchema]>([:])
    private let isClosed = Atomic<Bool>(false)

    /// Opens a store with the driver and options of `configuration`.
    public init(_ configuration: StoreConfiguration) throws {
        driver = try configuration.openDriver()
    }

    deinit { driver.close() }

    /// Closes the store's connections. Using the store afterwards throws ``SharkError/closed``.
    public func close() {
        writeLock.withLock {
            isClosed.store(true, ordering: .releasing)
            driver.close()
        }
    }

    /// The schema of `M` as applied to this store, applying it first if needed.
    public func schema<M: Model>(for type: M.Type) throws -> EntitySchema {
        let id = ObjectIdentifier(type)
        if let schema = schemas.withLock({ $0[id] }) { return schema }
        return try writeLock.withLock {
            try checkOpen()
            if let schema = schemas.withLock({ $0[id] }) { return schema }
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
            try driver.writer.apply(schema)
            schemas.withLock { applied in
                // Another model class stored under the same entity name is no longer in step
                // with the table: it re-applies (migrates back) the next time it is used.
                applied = applied.filter { $0.value.name != schema.name }
                applied[id] = schema
            }
            if !transactions.isEmpty {
                // DDL inside a transaction is undone by its rollback; forget it then too.
                transactions.onRollback { [weak self] in _ = self?.schemas.withLock { $0.removeValue(forKey: id) } }
            }
            return schema
        }
    }

    func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) { throw SharkError.closed }
    }

    /// Runs `body` on the connection a read should use: the writer when the calling thread is
    /// inside a transaction (to see its own writes), a reader otherwise.
    @usableFromInline
    func withReader<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        try checkOpen()
        if writeLock.isHeldByCurrentThread { return try body(driver.writer) }
        return try driver.read(body)
    }

    /// Objects of `M` matching `query`.
    ///
    /// Inlinable so that it is specialized for the concrete model in the caller's module:
    /// decoding and appending are then direct calls rather than generic ones, which halves
    /// the cost of a large fetch.
    @inlinable
    func fetch<M: Model>(_ query: QueryDescription, as type: M.Type) throws -> [M] {
        let schema = try schema(for: M.self)
        var objects: [M] = []
        try withReader { connection in
            try connection.select(query, schema: schema) { row in
                let object = try M(_sharkRow: row)
                object._$shark = ModelState(readFrom: self)
                objects.append(object)
            }
        }
        return objects
    }

    /// The object of type `M` whose key is `id`, or nil.
    ///
    /// ```swift
    /// let ada = try store.find(Person.self, id: 1)
    /// ```
    public func find<M: Model>(_ type: M.Type, id: M.Key) throws -> M? {
        var query = QueryDescription(entity: M._sharkEntityName)
        query.predicate = .comparison(.equal, .column(M._sharkSchemaColumns[0].name), .value(id.columnValue))
        query.limit = 1
        return try fetch(query, as: M.self).first
    }

    /// Reloads every persisted value of `object` from the store, discarding unsaved changes.
    /// Throws ``SharkError/notFound(entity:key:)`` when the object is no longer stored.
    public func refresh<M: Model>(_ object: M) throws {
        let schema = try schema(for: M.self)
        var query = QueryDescription(entity: schema.name)
        query.predicate = .comparison(.equal, .column(schema.key.name), .value(object.id.columnValue))
        query.limit = 1
        var found = false
        try withReader { connection in
            try connection.select(query, schema: schema) { row in
                try object._sharkRestore(from: row)
                found = true
            }
        }
        guard found else { throw SharkError.notFound(entity: schema.name, key: "\(object.id)") }
        object._$shark.didWrite(to: self)
    }
}
