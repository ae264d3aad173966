/// A query over the objects of one model, built step by step and run by `fetch`, `first` or
/// `count`. Each builder method returns a new query; nothing runs until a result is asked for.
///
/// ```swift
/// let page = try Person.query(in: store)
///     .where(\.age >= 18 && \.name != "")
///     .orderBy(\.name)
///     .limit(20).offset(40)
///     .fetch()
/// ```
public struct Query<Root: Model>: Sendable {
    /// The store the query runs against.
    public let store: Store
    /// The AST the drivers receive.
    @_spi(SharkDriver) public internal(set) var description: EntityQuery
    /// Why the query cannot run, if a predicate or ordering was invalid; running it throws.
    public internal(set) var problem: SharkError?
    /// What `including` asked to load along with the results, one statement each.
    @usableFromInline var prefetches: [Prefetch<Root>] = []

    public init(_ type: Root.Type = Root.self, in store: Store) {
        self.store = store
        self.description = EntityQuery(entity: Root._sharkEntityName)
    }

    /// Keeps only objects matching `predicate`; several `where` calls combine with AND.
    public func `where`(_ predicate: QueryPredicate<Root>) -> Query {
        var copy = self
        copy.problem = problem ?? predicate.problem
        if let existing = description.predicate {
            let combined = QueryExpression.conjunction(existing, predicate.expression)
            copy.problem = copy.problem ?? combined.nestingProblem(depth: combined.nestingDepth)
            copy.description.predicate = combined
        } else {
            copy.description.predicate = predicate.expression
        }
        return copy
    }

    /// Sorts by a property, ascending; later calls break ties of earlier ones.
    public func orderBy<V>(_ keyPath: KeyPath<Root, V>) -> Query {
        ordered(keyPath, ascending: true)
    }

    /// Sorts by a property, descending.
    public func orderByDescending<V>(_ keyPath: KeyPath<Root, V>) -> Query {
        ordered(keyPath, ascending: false)
    }

    /// Returns at most `count` objects.
    public func limit(_ count: Int) -> Query {
        var copy = self
        copy.description.limit = Swift.max(0, count)
        return copy
    }

    /// Skips the first `count` objects.
    public func offset(_ count: Int) -> Query {
        var copy = self
        copy.description.offset = Swift.max(0, count)
        return copy
    }

    /// Every matching object, in the query's order, ties broken by key.
    ///
    /// A query without `orderBy` returns its objects in whatever order the engine finds them
    /// cheapest to read (an index range in index order, say), unless it has a limit or an
    /// offset: a window is always taken in key order, so pages never overlap. Ask for the
    /// order you rely on:
    ///
    /// ```swift
    /// let all = try Person.query(in: store).fetch()                      // any order
    /// let byKey = try Person.query(in: store).orderBy(\.id).fetch()      // key order
    /// let page = try Person.query(in: store).limit(20).fetch()           // first 20 keys
    /// ```
    @inlinable
    public func fetch() throws -> [Root] {
        if let problem { throw problem }
        if !prefetches.isEmpty { return try fetchIncluding(firstOnly: false) }
        return try store.fetchObjects(self, firstOnly: false)
    }

    /// The first matching object, or nil. Honours the query's own limit: after `limit(0)`
    /// there is no first object, as `fetch()` returns none.
    @inlinable
    public func first() throws -> Root? {
        if let problem { throw problem }
        if !prefetches.isEmpty { return try fetchIncluding(firstOnly: true).first }
        return try store.fetchObjects(self, firstOnly: true).first
    }

    /// How many objects match (limit and offset applied).
    public func count() throws -> Int {
        if let problem { throw problem }
        let schema = try store.preparedSchema(for: Root.self)
        return try store.withReader { try $0.count(description, schema: schema) }
    }

    // MARK: Async results

    /// ``fetch()`` on one of the store's reader threads. The objects are new and belong to
    /// the caller from then on (`sending`): fetch from the main actor, use them there.
    ///
    /// ```swift
    /// @MainActor func reload() async throws {
    ///     people = try await Person.query(in: store).orderBy(\.name).fetch()
    /// }
    /// ```
    public func fetch() async throws -> sending [Root] {
        let query = self
        return try await store.readerThreads.run { try query.fetch() }
    }

    /// ``first()`` on one of the store's reader threads.
    public func first() async throws -> sending Root? {
        let query = self
        return try await store.readerThreads.run { try query.first() }
    }

    /// ``count()`` on one of the store's reader threads.
    public func count() async throws -> Int {
        let query = self
        return try await store.readerThreads.run { try query.count() }
    }

    private func ordered<V>(_ keyPath: KeyPath<Root, V>, ascending: Bool) -> Query {
        var copy = self
        do {
            copy.description.ordering.append(Ordering(try QueryPredicate<Root>.column(keyPath), ascending: ascending))
        } catch {
            copy.problem = problem ?? error
        }
        return copy
    }
}
