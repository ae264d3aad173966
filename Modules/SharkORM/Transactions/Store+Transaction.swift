extension Store {
    /// Runs `body` in a write transaction handed to it as a value: every write through `tx`
    /// commits together when `body` returns, or none does when it throws — the database *and*
    /// the objects written, which get their in-memory state back (values, key, change flags).
    ///
    /// ```swift
    /// let order = try store.write { tx in
    ///     let order = Order(item: 7, quantity: 2)
    ///     try tx.commit(order)
    ///     return order
    /// }
    /// ```
    ///
    /// The body runs on the calling thread, holding the store's writer: other threads' and
    /// tasks' writes wait; their reads see the state before the transaction until it commits.
    /// Called inside another transaction of this store, it becomes a savepoint of it. `did…`
    /// hooks run after the outermost transaction commits, once the writer is free again.
    public func write<T>(_ body: (WriteTransaction) throws -> T) throws -> T {
        if let open = try activeTransaction() { return try runSavepoint(inside: open, body) }
        return try runOutermostTransaction(retryingConflicts: true, body)
    }

    /// Runs `body` in a transaction, Shark's way: the writes inside it find the transaction on
    /// their own (`try person.commit()`, `try store.commit(person)`), and commit together or
    /// not at all. Nested calls are savepoints: their failure undoes only their own work.
    ///
    /// ```swift
    /// try store.transaction {
    ///     try order.commit()
    ///     try invoice.commit()
    /// }
    /// ```
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try write { _ in try body() }
    }

    /// ``write(_:)`` on the store's writer thread, so the caller's thread (a task of the
    /// cooperative pool, the main actor) is never blocked while the writer is busy.
    ///
    /// The body is `sending`: it may capture objects of the caller's, which then belong to it.
    /// What it returns is `sending` back.
    ///
    /// ```swift
    /// let id = try await store.write { tx in
    ///     let person = Person(name: "Ada")
    ///     try tx.commit(person)
    ///     return person.id
    /// }
    /// ```
    public func write<T>(_ body: sending @escaping (WriteTransaction) throws -> T) async throws -> sending T {
        try checkOpen()
        return try await writerThread.run { try self.runOutermostTransaction(retryingConflicts: true, body) }
    }

    /// `transaction(_:)` on the store's writer thread, as the async `write(_:)` does.
    ///
    /// ```swift
    /// try await store.transaction {
    ///     try Person(name: "Ada").commit()
    /// }
    /// ```
    public func transaction<T>(_ body: sending @escaping () throws -> T) async throws -> sending T {
        try checkOpen()
        return try await writerThread.run {
            try self.runOutermostTransaction(retryingConflicts: true) { _ in try body() }
        }
    }

    /// Whether the calling code runs inside a transaction of this store.
    public var isInTransaction: Bool {
        (try? activeTransaction()) != nil
    }
}
