/// The windows of a query that `batch(size:)` and `Store.batchRows` hand out: each starts
/// right after the last row of the one before (keyset paging) rather than counting rows from
/// the start with OFFSET, so every window costs about the same however far the iteration has
/// gone. Shared by objects and rows: `fetch` reads one window, `key` gives a row's key.
///
/// Without an ordering (or a window of its own) the query is walked in key order, each window
/// `key > last`. With one, the first window takes the query's offset, and each later one the
/// rows after the last row seen in the ordering completed by the key (see ``RowsAfter``),
/// read with that row's values in one snapshot. An ordering too deeply nested for that
/// predicate to stay within ``QueryExpression/maximumNestingDepth`` goes on by offset instead.
struct KeysetPages<Row> {
    let store: Store
    let schema: EntitySchema
    let query: EntityQuery
    let fetch: (EntityQuery) throws -> [Row]
    let key: (Row) -> Value

    func run(size: Int, _ body: ([Row]) throws -> Void) throws {
        guard size > 0 else {
            throw SharkError.invalidQuery(.invalidBatchSize, "a batch size must be positive, not \(size)")
        }
        if query.requiresOrder {
            try inOrder(size: size, body)
        } else {
            try byKey(size: size, body)
        }
    }

    private var keyColumn: QueryExpression { .column(schema.key.name) }

    private func byKey(size: Int, _ body: ([Row]) throws -> Void) throws {
        var window = query
        window.ordering = [Ordering(keyColumn, ascending: true)]
        window.limit = size
        var last: Value?
        while true {
            var page = window
            if let last {
                let after = QueryExpression.comparison(.greater, keyColumn, .value(last))
                page.predicate = query.predicate.map { .conjunction($0, after) } ?? after
            }
            let rows = try fetch(page)
            guard let final = rows.last else { return }
            last = key(final)
            try body(rows)
            if rows.count < size { return }
        }
    }

    private func inOrder(size: Int, _ body: ([Row]) throws -> Void) throws {
        let terms = query.ordering + [Ordering(keyColumn, ascending: true)]
        let start = query.offset ?? 0
        var remaining = query.limit
        var delivered = 0
        var after: QueryExpression?
        while remaining.map({ $0 > 0 }) ?? true {
            var page = query
            let wanted = Swift.min(size, remaining ?? size)
            page.limit = wanted
            if let after {
                let combined = query.predicate.map { .conjunction($0, after) } ?? after
                if combined.nestingDepth <= QueryExpression.maximumNestingDepth {
                    page.predicate = combined
                    page.offset = nil
                } else {
                    let (offset, overflow) = start.addingReportingOverflow(delivered)
                    page.offset = overflow ? Int.max : offset
                }
            }
            let (rows, next) = try store.read { _ -> ([Row], QueryExpression?) in
                let rows = try fetch(page)
                guard rows.count == wanted, let last = rows.last else { return (rows, nil) }
                let lastKey = key(last)
                var row = EntityQuery(entity: query.entity)
                row.predicate = .comparison(.equal, keyColumn, .value(lastKey))
                var values: [Value] = []
                for term in terms.dropLast() {
                    let value = try store.withReader { try $0.values(of: term.expression, row, schema: schema) }
                    values.append(value.first ?? .null)
                }
                return (rows, RowsAfter.predicate(terms, values: values + [lastKey]))
            }
            if rows.isEmpty { return }
            try body(rows)
            delivered += rows.count
            remaining = remaining.map { $0 - rows.count }
            guard let next else { return }
            after = next
        }
    }
}
