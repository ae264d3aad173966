/// Changing what a query matches in place, through the write pipeline.
extension Query {
    /// Sets properties of every matching row in the engine, without reading objects: one
    /// statement per row on the SQL drivers, values computed from the row itself where asked
    /// (`.set(\.salary, to: \.salary * 2)`, every expression over the row as it was). All in
    /// one transaction, or a savepoint of the open one. Returns how many rows changed.
    ///
    /// The changes go through the write pipeline as changes of the matched keys: observers,
    /// events and sync see an update of those columns for each row. Objects are not involved,
    /// so no `willUpdate`/`didUpdate` hook runs, and objects fetched earlier keep their old
    /// values until refreshed.
    ///
    /// ```swift
    /// let raised = try Employee.query(in: store).where(\.rating >= 4.5).updateAll(.set(\.salary, to: \.salary + 10))
    /// ```
    @discardableResult
    public func updateAll(_ updates: PropertyUpdate<Root>...) throws -> Int {
        try updateAll(updates)
    }

    /// `updateAll(_:)` (the variadic form) with the updates as an array.
    @discardableResult
    public func updateAll(_ updates: [PropertyUpdate<Root>]) throws -> Int {
        if let problem { throw problem }
        if let problem = updates.lazy.compactMap(\.problem).first { throw problem }
        let query = self
        if let open = try store.activeTransaction() {
            return try open.transaction { savepoint in try savepoint.updateAll(matching: query, updates) }
        }
        return try store.runOutermostTransaction { try $0.updateAll(matching: query, updates) }
    }

    /// ``updateAll(_:)-(PropertyUpdate<Root>...)`` on the store's writer thread.
    @discardableResult
    public func updateAll(_ updates: PropertyUpdate<Root>...) async throws -> Int {
        let query = self
        try store.checkOpen()
        return try await store.writerThread.run { try query.updateAll(updates) }
    }
}

extension WriteTransaction {
    /// Sets `updates` on every row `query` matches inside this transaction.
    func updateAll<M: Model>(matching query: Query<M>, _ updates: [PropertyUpdate<M>]) throws -> Int {
        let schema = try store.preparedSchema(for: M.self)
        var keys: [Value] = []
        try writer.read(.query(query.description), schema: schema) { row in keys.append(row.value(at: 0)) }
        guard !keys.isEmpty, !updates.isEmpty else { return 0 }
        var assignments: [ColumnAssignment] = []
        // A property set twice takes its last value, as in SQL.
        for update in updates {
            assignments.removeAll { $0.column == update.column }
            assignments.append(ColumnAssignment(column: update.column, value: update.value))
        }
        try stage.updateAll(keys: keys, setting: assignments, schema: schema)
        return keys.count
    }
}
