/// Prefetching to-one relationships: `including(\.department)` loads the related objects of
/// a whole result in one more statement, instead of one per object on first access (the N+1
/// problem).
extension Query {
    /// Loads the objects `relationship` refers to along with the results: one statement for
    /// all of them, however many results there are, read in the same snapshot.
    ///
    /// ```swift
    /// let people = try Employee.query(in: store).including(\.department).fetch()   // 2 SELECTs
    /// for person in people { print(person.department?.name ?? "—") }              // no more
    /// ```
    ///
    /// Async code uses it to read relationships without blocking: the related objects come
    /// back loaded from `try await query.including(\.department).fetch()`.
    public func including<M: Model>(_ relationship: KeyPath<Root, M?>) -> Query {
        prefetching(relationship, as: M.self)
    }

    /// Loads the objects a non-optional `relationship` refers to along with the results.
    public func including<M: Model>(_ relationship: KeyPath<Root, M>) -> Query {
        prefetching(relationship, as: M.self)
    }

    private func prefetching<M: Model>(_ relationship: AnyKeyPath, as: M.Type) -> Query {
        var copy = self
        guard let column = Root.columnIndex(of: relationship) else {
            copy.problem =
                problem
                ?? SharkError.invalidQuery(
                    .notPersisted, "\(relationship) is not a persisted property of \(Root._sharkEntityName)")
            return copy
        }
        let store = self.store
        copy.prefetches.append(
            Prefetch(
                prepare: { _ = try store.preparedSchema(for: M.self) },
                load: { objects, commits in try store.prefetch(column, of: objects, as: M.self, asOf: commits) }))
        return copy
    }

    /// The results and their prefetched relationships, all read in one snapshot. Every
    /// model's table is prepared first: a snapshot does not see tables created after it began.
    @usableFromInline
    func fetchIncluding(firstOnly: Bool) throws -> [Root] {
        _ = try store.preparedSchema(for: Root.self)
        for prefetch in prefetches { try prefetch.prepare() }
        // Counted before the snapshot begins: a row missing from it may have been committed
        // since, so a miss is remembered only as of a count no later than the snapshot.
        let commits = store.eventHub.lastSequence
        return try store.read { _ in
            let objects = try store.fetchObjects(self, firstOnly: firstOnly)
            for prefetch in prefetches { try prefetch.load(objects, commits) }
            return objects
        }
    }
}

/// One relationship `including` loads: how to prepare its model's table, and how to load
/// the related objects of a result.
@usableFromInline
struct Prefetch<Root>: Sendable {
    let prepare: @Sendable () throws -> Void
    /// Loads the related objects of a result, read in a snapshot no older than the given
    /// count of the store's commits.
    let load: @Sendable ([Root], UInt64) throws -> Void
}

extension Store {
    /// Loads every unloaded object the relationship `column` of `objects` holds, with one
    /// query by key. Objects that refer to the same key each get it (they are distinct faults).
    func prefetch<Root: Model, M: Model>(_ column: Int32, of objects: [Root], as: M.Type, asOf commits: UInt64) throws {
        var faults: [Value: [M]] = [:]
        faults.reserveCapacity(objects.count)
        for object in objects {
            guard let related = object._sharkRelated(column: column) as? M, related.isFault else { continue }
            faults[related.id.columnValue, default: []].append(related)
        }
        if faults.isEmpty { return }
        let schema = try preparedSchema(for: M.self)
        var query = EntityQuery(entity: schema.name)
        query.predicate = .isIn(.column(schema.key.name), Array(faults.keys))
        var found = 0
        try withReader { connection in
            try connection.read(.query(query), schema: schema) { row in
                found += 1
                for fault in faults[row.value(at: 0)] ?? [] {
                    try fault._sharkRestore(from: row)
                    fault._$shark = ModelState(readFrom: self)
                }
            }
        }
        // Keys with no row (rare, so looked for only then): reading the relationship answers
        // nil without asking again, until the store commits.
        guard found < faults.count else { return }
        for (_, related) in faults {
            for fault in related where fault.isFault { fault.rememberMissingRow(in: self, asOf: commits) }
        }
    }
}
