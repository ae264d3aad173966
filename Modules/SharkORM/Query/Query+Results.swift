/// Results of a query beyond its objects: whether anything matches, and the keys of what does.
extension Query {
    /// Whether any object matches, the query's window (limit, offset) applied. Asks the
    /// engine for at most one row and builds no object.
    ///
    /// ```swift
    /// if try Person.query(in: store).where(\.age >= 18).exists() {
    ///     print("there are adults")
    /// }
    /// ```
    public func exists() throws -> Bool {
        if let problem { throw problem }
        var probe = description
        probe.limit = Swift.min(probe.limit ?? 1, 1)
        let schema = try store.preparedSchema(for: Root.self)
        return try store.withReader { try $0.count(probe, schema: schema) } > 0
    }

    /// The keys of the matching objects, in the query's order, without building the objects:
    /// a list to keep, or the input of another query.
    ///
    /// ```swift
    /// let adults = try Person.query(in: store).where(\.age >= 18).orderBy(\.name).ids()
    /// let again = try Person.query(in: store).where(.isIn(\.id, adults)).count()
    /// ```
    public func ids() throws -> [Root.Key] {
        if let problem { throw problem }
        var keys: [Root.Key] = []
        try store.readRows(of: self, firstOnly: false) { row in
            keys.append(try Root.Key.read(from: row, at: 0))
        }
        return keys
    }

    /// ``exists()`` on one of the store's reader threads.
    public func exists() async throws -> Bool {
        let query = self
        return try await store.readerThreads.run { try query.exists() }
    }

    /// ``ids()`` on one of the store's reader threads.
    public func ids() async throws -> [Root.Key] {
        let query = self
        return try await store.readerThreads.run { try query.ids() }
    }
}
