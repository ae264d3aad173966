/// A read of a store that sees one consistent state for its whole body, however many
/// queries it runs, while writers go on.
///
/// ```swift
/// let (people, count) = try store.read { snapshot in
///     (try snapshot.fetch(Person.query(in: store)), try snapshot.count(Order.query(in: store)))
/// }
/// ```
///
/// Like ``WriteTransaction`` it belongs to its body: queries inside the body that are not
/// handed it (`Person.query(in: store).fetch()`) read the same state, and using it from
/// another thread or task, or after the body returned, throws
/// ``SharkError/transactionMisuse(_:)``.
public final class ReadTransaction: ScopedTransaction, @unchecked Sendable {
    /// The store this transaction reads.
    public let store: Store
    let connection: any DriverConnection
    let confinement = Confinement()

    init(store: Store, connection: any DriverConnection) {
        self.store = store
        self.connection = connection
    }

    func usability() -> SharkError? { confinement.problem("read transaction") }

    /// Every object `query` matches, in this transaction's state.
    public func fetch<M: Model>(_ query: Query<M>) throws -> [M] {
        if let problem = usability() { throw problem }
        return try query.fetch()
    }

    /// The object of type `M` whose key is `id`, in this transaction's state.
    public func find<M: Model>(_ type: M.Type, id: M.Key) throws -> M? {
        if let problem = usability() { throw problem }
        return try store.find(type, id: id)
    }

    /// How many objects `query` matches, in this transaction's state.
    public func count<M: Model>(_ query: Query<M>) throws -> Int {
        if let problem = usability() { throw problem }
        return try query.count()
    }
}

extension Store {
    /// Runs `body` with a consistent view of the committed state: every query inside sees the
    /// same snapshot, however long it takes, and never waits for writers. Inside a write
    /// transaction of this store, it reads that transaction's own state instead.
    ///
    /// The snapshot is taken by the first query, on every driver (as SQLite's deferred reads
    /// do). A model used for the first time after that has its table created outside the
    /// snapshot, which then does not see it: call ``prepare(_:)`` for such models before
    /// the read.
    ///
    /// ```swift
    /// let total = try store.read { snapshot in
    ///     try snapshot.fetch(Order.query(in: store)).reduce(0) { $0 + $1.quantity }
    /// }
    /// ```
    public func read<T>(_ body: (ReadTransaction) throws -> T) throws -> T {
        try checkOpen()
        if try activeTransaction() != nil {
            let transaction = ReadTransaction(store: self, connection: driver.writer)
            defer { transaction.confinement.end() }
            return try TransactionScope.with(transaction) { try body(transaction) }
        }
        return try driver.read { connection in
            try connection.beginRead()
            let transaction = ReadTransaction(store: self, connection: connection)
            defer {
                transaction.confinement.end()
                try? connection.endRead()
            }
            return try TransactionScope.with(transaction) { try body(transaction) }
        }
    }

    /// ``read(_:)`` on one of the store's reader threads, so the caller's thread is never
    /// blocked.
    ///
    /// ```swift
    /// let people = try await store.read { snapshot in try snapshot.fetch(Person.query(in: store)) }
    /// ```
    public func read<T>(_ body: sending @escaping (ReadTransaction) throws -> T) async throws -> sending T {
        try checkOpen()
        return try await readerThreads.run { try self.read(body) }
    }

    /// Runs `body` on the connection a read should use: the writer inside a write transaction
    /// of this store (to see its own writes), the connection of the read transaction around
    /// the calling code, or a reader of the driver's.
    func withReader<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        try checkOpen()
        // The common case, no transaction open around the caller: one task-local read.
        if TransactionScope.open.isEmpty { return try driver.read(body) }
        // An observation computing: what it reads is its region (see `ObservedRegion`).
        if let region = TransactionScope.region(of: self) {
            return try withScopedReader { try body(RegionRecordingConnection($0, recordingInto: region)) }
        }
        return try withScopedReader(body)
    }

    /// ``withReader(_:)`` once some scope is open around the caller.
    private func withScopedReader<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        if try activeTransaction() != nil { return try body(driver.writer) }
        if let snapshot = try TransactionScope.current(ReadTransaction.self, of: self) {
            return try body(snapshot.connection)
        }
        return try driver.read(body)
    }

    /// Objects of `M` matching `query`.
    ///
    /// Inlinable so that it is specialized for the concrete model in the caller's module:
    /// decoding and appending are then direct calls rather than generic ones, which halves
    /// the cost of a large fetch.
    @inlinable
    func fetchObjects<M: Model>(_ query: Query<M>, firstOnly: Bool) throws -> [M] {
        var objects: [M] = []
        try readRows(of: query, firstOnly: firstOnly) { row in
            let object = try M(_sharkRow: row)
            object._$shark = ModelState(readFrom: self)
            objects.append(object)
        }
        return objects
    }

    /// Calls `body` with each row `query` reads (only the first when `firstOnly`, honouring
    /// the query's own limit: after `limit(0)` there is none).
    @usableFromInline
    func readRows<M: Model>(of query: Query<M>, firstOnly: Bool, _ body: (any RowReader) throws -> Void) throws {
        var description = query.description
        if firstOnly { description.limit = min(description.limit ?? 1, 1) }
        let schema = try preparedSchema(for: M.self)
        try withReader { connection in try connection.read(.query(description), schema: schema, body) }
    }

    /// The object of type `M` whose key is `id`, or nil.
    ///
    /// ```swift
    /// let ada = try store.find(Person.self, id: 1)
    /// ```
    ///
    /// Inlinable, as `fetch` is: specialized in the caller's module, decoding the object and
    /// setting its state are direct calls.
    @inlinable
    public func find<M: Model>(_ type: M.Type, id: M.Key) throws -> M? {
        var found: M?
        try readRow(of: M.self, key: id.columnValue) { row in
            let object = try M(_sharkRow: row)
            object._$shark = ModelState(readFrom: self)
            found = object
        }
        return found
    }

    /// Calls `body` with the row of `M` whose key is `key`, if there is one.
    @usableFromInline
    func readRow<M: Model>(of type: M.Type, key: Value, _ body: (any RowReader) throws -> Void) throws {
        let schema = try preparedSchema(for: M.self)
        // A lookup by key outside any scope, while nothing writes: on the writer, whose cache
        // the last commit left warm, where the driver says that is cheaper (see
        // `Driver.readsByKeyOnIdleWriter`). One row: the writer is held for microseconds.
        if driver.readsByKeyOnIdleWriter, TransactionScope.open.isEmpty, writerLock.try() {
            defer { writerLock.unlock() }
            try checkOpen()
            try driver.writer.read(.key(key), schema: schema, body)
            return
        }
        // Outside any scope, the driver reads the last commit its own way (see
        // `Driver.readRow(withKey:schema:_:)`); inside one, on the scope's connection.
        if TransactionScope.open.isEmpty {
            try checkOpen()
            try driver.readRow(withKey: key, schema: schema, body)
            return
        }
        try withReader { connection in try connection.read(.key(key), schema: schema, body) }
    }

    /// ``find(_:id:)`` on one of the store's reader threads.
    public func find<M: Model>(_ type: M.Type, id: M.Key) async throws -> sending M? {
        try checkOpen()
        return try await readerThreads.run { try self.find(type, id: id) }
    }

    /// Reloads every persisted value of `object` from the store, discarding unsaved changes.
    /// Throws ``SharkError/notFound(entity:key:)`` when the object is no longer stored.
    public func refresh<M: Model>(_ object: M) throws {
        let schema = try preparedSchema(for: M.self)
        var found = false
        try withReader { connection in
            try connection.read(.key(object.id.columnValue), schema: schema) { row in
                try object._sharkRestore(from: row)
                found = true
            }
        }
        guard found else { throw SharkError.notFound(entity: schema.name, key: "\(object.id)") }
        object._$shark.didLoad(from: self)
    }
}
