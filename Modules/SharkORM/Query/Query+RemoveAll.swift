/// Removing what a query matches, through the write pipeline.
extension Query {
    /// Removes every matching object, as ``Store/remove(_:)`` would one by one: each
    /// `willDelete` hook runs and may veto (then nothing is removed and the call throws
    /// ``SharkError/vetoed(entity:operation:)``), and the `didDelete` hooks run once the
    /// removal commits. All in one transaction, or a savepoint of the open one. Returns how
    /// many objects were removed.
    ///
    /// The objects are read inside that transaction, so the removal sees exactly what it
    /// removes. Objects fetched earlier for the same rows are other objects (see "Identity" in
    /// docs/architecture.md): they still say they are persisted until refreshed.
    ///
    /// ```swift
    /// let removed = try Person.query(in: store).where(\.age < 18).removeAll()
    /// ```
    @discardableResult
    public func removeAll() throws -> Int {
        if let problem { throw problem }
        let query = self
        if let open = try store.activeTransaction() {
            return try open.transaction { savepoint in try savepoint.removeAll(matching: query) }
        }
        return try store.runOutermostTransaction { try $0.removeAll(matching: query) }
    }

    /// ``removeAll()`` on the store's writer thread.
    @discardableResult
    public func removeAll() async throws -> Int {
        let query = self
        try store.checkOpen()
        return try await store.writerThread.run { try query.removeAll() }
    }
}

extension WriteTransaction {
    /// Removes every object `query` matches inside this transaction.
    func removeAll<M: Model>(matching query: Query<M>) throws -> Int {
        let schema = try store.preparedSchema(for: M.self)
        let objects = try store.fetchObjects(query, firstOnly: false)
        for object in objects { try delete(object, schema: schema) }
        return objects.count
    }
}
