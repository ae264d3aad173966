extension Store {
    /// Runs `body` in a transaction: every write inside commits together, or none does.
    ///
    /// When `body` throws, the transaction rolls back, the objects written inside get their
    /// in-memory state back (values, key, change flags), and the error is rethrown. A
    /// transaction started inside another becomes a savepoint: its failure undoes only its
    /// own work. `did…` hooks run after the outermost transaction commits.
    ///
    /// ```swift
    /// try store.transaction {
    ///     try store.commit(order)
    ///     try store.commit(invoice)
    /// }
    /// ```
    ///
    /// Only the calling thread takes part; other threads' writes wait, and their reads see
    /// the state before the transaction until it commits.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try writeLock.withLock {
            try checkOpen()
            let writer = driver.writer
            let level = transactions.push()
            do {
                if let savepoint = level.savepoint {
                    try writer.createSavepoint(savepoint)
                } else {
                    try writer.beginTransaction()
                }
            } catch {
                transactions.popRolledBack(in: self)
                throw error
            }
            let result: T
            do {
                result = try body()
                if let savepoint = level.savepoint {
                    try writer.releaseSavepoint(savepoint)
                } else {
                    try writer.commitTransaction()
                }
            } catch {
                if let savepoint = level.savepoint {
                    try? writer.rollbackToSavepoint(savepoint)
                    try? writer.releaseSavepoint(savepoint)
                } else {
                    try? writer.rollbackTransaction()
                }
                transactions.popRolledBack(in: self)
                throw error
            }
            for write in transactions.popCommitted() { write.runHook() }
            return result
        }
    }

    /// Runs `body` with the writer connection, holding the store's write lock: for
    /// driver-specific operations that must not overlap a write, such as rekeying an
    /// encrypted database. Other threads' writes wait; reads go on.
    ///
    /// ```swift
    /// try store.withWriter { writer in try (writer as? SQLDriverConnection)?.connection.execute("VACUUM") }
    /// ```
    public func withWriter<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        try writeLock.withLock {
            try checkOpen()
            return try body(driver.writer)
        }
    }

    /// Whether the calling thread is inside a transaction of this store.
    public var isInTransaction: Bool {
        writeLock.isHeldByCurrentThread && !transactions.isEmpty
    }
}
