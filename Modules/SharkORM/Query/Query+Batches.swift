/// Iterating any number of matches in windows, with memory bounded by the window.
extension Query {
    /// Calls `body` with the matching objects `size` at a time, in the query's order (key
    /// order for a query without one), so that iterating a million rows holds one window of
    /// objects at a time. Each window starts right after the last row of the one before, in
    /// the query's order (`id > last`, or for an ordering its terms compared with that row's
    /// values), so every window costs about the same, however far the iteration has gone.
    /// Each window is its own read: rows committed meanwhile may appear in a later window,
    /// and a row whose ordering values change meanwhile can move past the windows or back
    /// into them; rows that stay put are never skipped or repeated. A `body` that throws
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
            try batchInOrder(size: size, body)
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

    /// Windows for a query with an ordering or a window of its own: the first takes the
    /// query's offset; each later one the rows after the last row seen, in the ordering
    /// completed by the key (see ``RowsAfter``), read with that row's values in one snapshot.
    /// An ordering too deeply nested for that predicate to stay within
    /// ``QueryExpression/maximumNestingDepth`` goes on by offset instead.
    private func batchInOrder(size: Int, _ body: ([Root]) throws -> Void) throws {
        let schema = try store.preparedSchema(for: Root.self)
        let key = QueryExpression.column(Root._sharkSchemaColumns[0].name)
        let terms = description.ordering + [Ordering(key, ascending: true)]
        let start = description.offset ?? 0
        var remaining = description.limit
        var delivered = 0
        var after: QueryExpression?
        while remaining.map({ $0 > 0 }) ?? true {
            var page = self
            let wanted = Swift.min(size, remaining ?? size)
            page.description.limit = wanted
            if let after {
                let combined = description.predicate.map { .conjunction($0, after) } ?? after
                if combined.nestingDepth <= QueryExpression.maximumNestingDepth {
                    page.description.predicate = combined
                    page.description.offset = nil
                } else {
                    let (offset, overflow) = start.addingReportingOverflow(delivered)
                    page.description.offset = overflow ? Int.max : offset
                }
            }
            let (objects, next) = try store.read { _ -> ([Root], QueryExpression?) in
                let objects = try page.fetch()
                guard objects.count == wanted, let last = objects.last else { return (objects, nil) }
                let lastKey = last.id.columnValue
                var row = EntityQuery(entity: description.entity)
                row.predicate = .comparison(.equal, key, .value(lastKey))
                var values: [Value] = []
                for term in terms.dropLast() {
                    let value = try store.withReader { try $0.values(of: term.expression, row, schema: schema) }
                    values.append(value.first ?? .null)
                }
                return (objects, RowsAfter.predicate(terms, values: values + [lastKey]))
            }
            if objects.isEmpty { return }
            try body(objects)
            delivered += objects.count
            remaining = remaining.map { $0 - objects.count }
            guard let next else { return }
            after = next
        }
    }
}
