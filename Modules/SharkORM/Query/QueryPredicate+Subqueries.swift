/// Predicates on another query's matches: GYDataCenter's nested queries, run by the engine
/// as one statement (an SQL subquery; the memory engine evaluates the inner query first).
extension QueryPredicate {
    /// The relationship refers to one of the objects `query` matches.
    ///
    /// ```swift
    /// let londoners = try Employee.query(in: store)
    ///     .where(.isIn(\.department, Department.query(in: store).where(\.city == "London")))
    ///     .fetch()
    /// ```
    public static func isIn<M: Model>(_ relationship: KeyPath<Root, M?>, _ query: Query<M>) -> QueryPredicate {
        subquery(relationship, query, selecting: 0)
    }

    /// The non-optional relationship refers to one of the objects `query` matches.
    public static func isIn<M: Model>(_ relationship: KeyPath<Root, M>, _ query: Query<M>) -> QueryPredicate {
        subquery(relationship, query, selecting: 0)
    }

    /// The property's value is one of the values `column` takes among `query`'s matches.
    ///
    /// ```swift
    /// let named = try Person.query(in: store)
    ///     .where(.isIn(\.name, Author.query(in: store).where(\.books > 3), selecting: \.name))
    ///     .fetch()
    /// ```
    public static func isIn<V, M: Model>(
        _ keyPath: KeyPath<Root, V>, _ query: Query<M>, selecting column: KeyPath<M, V>
    )
        -> QueryPredicate
    {
        guard let position = M.columnIndex(of: column) else {
            return QueryPredicate(
                .value(.null), depth: 1,
                problem: SharkError.invalidQuery(
                    .notPersisted,
                    "a subquery on \(M._sharkEntityName) selects a property that is not persisted"))
        }
        return subquery(keyPath, query, selecting: position)
    }

    /// The object is referred to, through `relationship`, by one of `query`'s matches: the
    /// inverse of ``isIn(_:_:)-(KeyPath<Root,M?>,_)``.
    ///
    /// ```swift
    /// let published = try Author.query(in: store)
    ///     .where(.isReferenced(by: Book.query(in: store).where(\.pages > 600), through: \.author))
    ///     .fetch()
    /// ```
    public static func isReferenced<M: Model>(by query: Query<M>, through relationship: KeyPath<M, Root?>)
        -> QueryPredicate
    {
        referenced(by: query, through: relationship)
    }

    /// The object is referred to by one of `query`'s matches through a non-optional relationship.
    public static func isReferenced<M: Model>(by query: Query<M>, through relationship: KeyPath<M, Root>)
        -> QueryPredicate
    {
        referenced(by: query, through: relationship)
    }

    private static func referenced<M: Model>(by query: Query<M>, through relationship: AnyKeyPath) -> QueryPredicate {
        if let problem = query.problem { return QueryPredicate(.value(.null), depth: 1, problem: problem) }
        guard let position = M.columnIndex(of: relationship) else {
            return QueryPredicate(
                .value(.null), depth: 1,
                problem: SharkError.invalidQuery(
                    .notPersisted, "\(relationship) is not a persisted property of \(M._sharkEntityName)")
            )
        }
        let subquery = Subquery(
            entity: M._sharkEntityName, column: M._sharkSchemaColumns[Int(position)].name,
            predicate: query.description.predicate)
        return QueryPredicate(.isInSubquery(.column(Root._sharkSchemaColumns[0].name), subquery))
    }

    private static func subquery<M: Model>(_ keyPath: AnyKeyPath, _ query: Query<M>, selecting position: Int32)
        -> QueryPredicate
    {
        if let problem = query.problem { return QueryPredicate(.value(.null), depth: 1, problem: problem) }
        return build { () throws(SharkError) in
            let subquery = Subquery(
                entity: M._sharkEntityName, column: M._sharkSchemaColumns[Int(position)].name,
                predicate: query.description.predicate)
            return .isInSubquery(try column(keyPath), subquery)
        }
    }
}
