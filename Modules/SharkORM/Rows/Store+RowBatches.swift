/// Reading any number of rows by name in windows, with memory bounded by the window: what a
/// tool that prints or copies a whole table calls.
extension Store {
    /// Calls `body` with the rows of `entity` that `predicate` matches, `size` at a time, in
    /// `ordering` (then key) order: the rows ``fetchRows(of:where:orderedBy:limit:offset:)``
    /// returns, without ever holding more than one window of them. Windows continue after
    /// the last row seen, as `Query.batch(size:)`'s do, so each costs about the same however
    /// far the iteration has gone; each is its own read. A table SharkORM did not make, whose
    /// key may not be unique, is read by offset instead. A `body` that throws stops.
    ///
    /// ```swift
    /// var names: [String] = []
    /// try store.batchRows(of: "Person", orderedBy: [Ordering(.column("name"))], size: 1000) { rows in
    ///     names += rows.map { $0["name"]?.description ?? "" }
    /// }
    /// ```
    public func batchRows(
        of entity: String, where predicate: QueryExpression? = nil, orderedBy ordering: [Ordering] = [],
        limit: Int? = nil, offset: Int? = nil, size: Int, _ body: ([StoredRow]) throws -> Void
    ) throws {
        let (schema, query) = try rowQuery(
            of: entity, where: predicate, orderedBy: ordering, limit: limit, offset: offset)
        let names = schema.columns.map(\.name)
        let isRecorded = try recordedSchemas().contains { $0.name == schema.name }
        guard isRecorded else {
            try batchByOffset(query, schema: schema, size: size) { rows in
                try body(rows.map { StoredRow(entity: schema.name, columns: names, values: $0) })
            }
            return
        }
        let pages = KeysetPages(
            store: self, schema: schema, query: query, fetch: { try self.fetchRows($0, schema: schema) },
            key: { $0[0] })
        try pages.run(size: size) { rows in
            try body(rows.map { StoredRow(entity: schema.name, columns: names, values: $0) })
        }
    }

    /// Windows by OFFSET, in `query`'s ordering then the key's: for tables whose key may
    /// repeat (a view's first column), where continuing after a key could skip rows.
    private func batchByOffset(
        _ query: EntityQuery, schema: EntitySchema, size: Int, _ body: ([[Value]]) throws -> Void
    ) throws {
        guard size > 0 else {
            throw SharkError.invalidQuery(.invalidBatchSize, "a batch size must be positive, not \(size)")
        }
        var window = query
        window.ordering = query.ordering + [Ordering(.column(schema.key.name))]
        var remaining = query.limit
        var offset = query.offset ?? 0
        while remaining.map({ $0 > 0 }) ?? true {
            let wanted = Swift.min(size, remaining ?? size)
            window.limit = wanted
            window.offset = offset
            let rows = try fetchRows(window, schema: schema)
            if rows.isEmpty { return }
            try body(rows)
            if rows.count < wanted { return }
            offset += rows.count
            remaining = remaining.map { $0 - rows.count }
        }
    }
}
