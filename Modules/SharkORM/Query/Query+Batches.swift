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
        let pages = KeysetPages(
            store: store, schema: try store.preparedSchema(for: Root.self), query: description,
            fetch: { window in
                var page = self
                page.description = window
                return try page.fetch()
            },
            key: { $0.id.columnValue })
        try pages.run(size: size, body)
    }
}
