/// Iterating any number of matches in windows, with memory bounded by the window.
extension Query {
    /// Calls `body` with the matching objects `size` at a time, in the query's order (key
    /// order for a query without one), so that iterating a million rows holds one window of
    /// objects at a time. Each window is its own read: rows committed meanwhile may appear in
    /// a later window, but none is skipped or repeated when the query has no ordering or
    /// window of its own (windows then follow the key: `id > last`). A `body` that throws
    /// stops the iteration.
    ///
    /// ```swift
    /// var total = 0
    /// try Person.query(in: store).where(\.age >= 18).batch(size: 1000) { people in
    ///     total += people.count
    /// }
    /// ```
    public func batch(size: Int, _ body: ([Root]) throws -> Void) throws {
        if let problem { throw problem }
        guard size > 0 else {
            throw SharkError.invalidQuery(.invalidBatchSize, "a batch size must be positive, not \(size)")
        }
        if description.requiresOrder {
            try batchByOffset(size: size, body)
        } else {
            try batchByKey(size: size, body)
        }
    }

    /// Windows that continue after the last key seen: each costs the same however far the
    /// iteration has gone.
    private func batchByKey(size: Int, _ body: ([Root]) throws -> Void) throws {
        let key = QueryExpression.column(Root._sharkSchemaColumns[0].name)
        var window = self
        window.description.ordering = [Ordering(key, ascending: true)]
        window.description.limit = size
        var last: Value?
        while true {
            var page = window
            if let last {
                let after = QueryExpression.comparison(.greater, key, .value(last))
                page.description.predicate = description.predicate.map { .conjunction($0, after) } ?? after
            }
            let objects = try page.fetch()
            if objects.isEmpty { return }
            last = objects[objects.count - 1].id.columnValue
            try body(objects)
            if objects.count < size { return }
        }
    }

    /// Windows by offset, for a query with an ordering or a window of its own: the ordering
    /// ends with the key, so consecutive windows neither overlap nor skip.
    private func batchByOffset(size: Int, _ body: ([Root]) throws -> Void) throws {
        let start = description.offset ?? 0
        let end = description.limit.map { start.addingReportingOverflow($0).overflow ? Int.max : start + $0 }
        var offset = start
        while end.map({ offset < $0 }) ?? true {
            var page = self
            page.description.offset = offset
            page.description.limit = Swift.min(size, end.map { $0 - offset } ?? size)
            let objects = try page.fetch()
            if objects.isEmpty { return }
            try body(objects)
            if objects.count < size { return }
            offset += objects.count
        }
    }
}
