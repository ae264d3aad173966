/// Explicit joins (Shark's `joinTo` and `joinedResults`): each result paired with the objects
/// of another model whose property equals one of its own, with LEFT JOIN semantics.
extension Query {
    /// Pairs every result with each object of `M` whose `right` equals the result's `left`;
    /// a result with no such object comes once, paired with nil (a LEFT JOIN). Two statements
    /// in all, whatever the number of results.
    ///
    /// ```swift
    /// let rows = try Employee.query(in: store)
    ///     .joined(Office.self, on: \.city, equals: \.city)
    ///     .fetch()
    /// for row in rows { print(row.object.name, row.joined?.address ?? "no office") }
    /// ```
    public func joined<M: Model, V>(_ type: M.Type, on left: KeyPath<Root, V>, equals right: KeyPath<M, V>)
        -> JoinedQuery<Root, M>
    {
        JoinedQuery(
            query: self, left: Root.columnIndex(of: left).map(Int.init),
            right: M.columnIndex(of: right).map(Int.init))
    }

    /// Pairs every result with the object its to-one `relationship` refers to (nil when none,
    /// or when it is not stored).
    ///
    /// ```swift
    /// for row in try Employee.query(in: store).joined(\.department).fetch() {
    ///     print(row.object.name, row.joined?.name ?? "—")
    /// }
    /// ```
    public func joined<M: Model>(_ relationship: KeyPath<Root, M?>) -> JoinedQuery<Root, M> {
        JoinedQuery(query: self, left: Root.columnIndex(of: relationship).map(Int.init), right: 0)
    }
}

/// A query whose results come paired with joined objects: see
/// ``Query/joined(_:on:equals:)``.
public struct JoinedQuery<Root: Model, Joined: Model>: Sendable {
    /// The query whose results are joined.
    public let query: Query<Root>
    /// The joined columns, by schema position; nil for a property that is not persisted.
    let left: Int?
    let right: Int?

    /// One result and one object joined to it (nil when none was).
    public struct Row {
        public let object: Root
        public let joined: Joined?
    }

    /// Every result of the query, in its order, each paired with its joined objects in key
    /// order (one row per joined object), or once with nil.
    public func fetch() throws -> [Row] {
        guard let left, let right else {
            throw SharkError.invalidQuery(.notPersisted, "a join names a property that is not persisted")
        }
        if let problem = query.problem { throw problem }
        let store = query.store
        // Both tables prepared before the snapshot, which would not see them created.
        _ = try store.preparedSchema(for: Root.self)
        let joinedSchema = try store.preparedSchema(for: Joined.self)
        return try store.read { _ in
            // The join values of the results, read from the rows rather than the objects, so
            // that relationships are not loaded for it.
            var objects: [Root] = []
            var values: [Value] = []
            try store.readRows(of: query, firstOnly: false) { row in
                let object = try Root(_sharkRow: row)
                object._$shark = ModelState(readFrom: store)
                objects.append(object)
                values.append(row.value(at: Int32(left)))
            }
            var matches: [Value: [Joined]] = [:]
            let wanted = Array(Set(values.filter { !$0.isNull }))
            if !wanted.isEmpty {
                var joinedQuery = EntityQuery(entity: joinedSchema.name)
                joinedQuery.predicate = .isIn(.column(joinedSchema.columns[right].name), wanted)
                joinedQuery.ordering = [Ordering(.column(joinedSchema.key.name))]
                try store.withReader { connection in
                    try connection.read(.query(joinedQuery), schema: joinedSchema) { row in
                        let object = try Joined(_sharkRow: row)
                        object._$shark = ModelState(readFrom: store)
                        matches[row.value(at: Int32(right)), default: []].append(object)
                    }
                }
            }
            var rows: [Row] = []
            rows.reserveCapacity(objects.count)
            for (object, value) in zip(objects, values) {
                guard let joined = matches[value], !joined.isEmpty else {
                    rows.append(Row(object: object, joined: nil))
                    continue
                }
                for match in joined { rows.append(Row(object: object, joined: match)) }
            }
            return rows
        }
    }

    /// ``fetch()`` on one of the store's reader threads.
    public func fetch() async throws -> sending [Row] {
        let joined = self
        return try await query.store.readerThreads.run { try joined.fetch() }
    }
}
