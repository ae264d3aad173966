/// The distinct values of a property, and objects grouped by one.
extension Query {
    /// The distinct values a property takes among the matches (the window applied to the
    /// matches first), ascending in the engine's order: for an optional property, `nil` first.
    /// Computed by the engine, without building objects.
    ///
    /// ```swift
    /// let ages = try Person.query(in: store).where(\.name != "").distinct(\.age)
    /// ```
    public func distinct<V: ColumnConvertible>(_ keyPath: KeyPath<Root, V>) throws -> [V] {
        if let problem { throw problem }
        let column = try QueryPredicate<Root>.column(keyPath)
        let schema = try store.preparedSchema(for: Root.self)
        let values = try store.withReader { try $0.distinctValues(of: column, description, schema: schema) }
        var result: [V] = []
        result.reserveCapacity(values.count)
        for value in values { result.append(try V(columnValue: value)) }
        return result
    }

    /// The matching objects grouped by a property, each group in the query's order.
    ///
    /// ```swift
    /// let byAge = try Person.query(in: store).orderBy(\.name).grouped(by: \.age)
    /// for (age, people) in byAge { print(age, people.map(\.name)) }
    /// ```
    public func grouped<V: Hashable>(by keyPath: KeyPath<Root, V>) throws -> [V: [Root]] {
        Dictionary(grouping: try fetch(), by: { $0[keyPath: keyPath] })
    }

    /// ``distinct(_:)`` on one of the store's reader threads.
    public func distinct<V: ColumnConvertible & Sendable>(_ keyPath: KeyPath<Root, V> & Sendable) async throws -> [V] {
        let query = self
        return try await store.readerThreads.run { try query.distinct(keyPath) }
    }
}

extension Query {
    /// The matching objects grouped by a to-one relationship, keyed by the related object's
    /// key (nil for objects that refer to none), without loading the related objects.
    ///
    /// ```swift
    /// let byDepartment = try Employee.query(in: store).grouped(by: \.department)
    /// let salesTeam = byDepartment[sales.id] ?? []
    /// ```
    public func grouped<M: Model>(by relationship: KeyPath<Root, M?>) throws -> [M.Key?: [Root]] {
        guard let column = Root.columnIndex(of: relationship) else {
            throw SharkError.invalidQuery(
                .notPersisted, "\(relationship) is not a persisted property of \(Root._sharkEntityName)")
        }
        return Dictionary(grouping: try fetch()) { ($0._sharkRelated(column: column) as? M)?.id }
    }
}

extension Query {
    /// ``grouped(by:)-(KeyPath<Root,V>)`` on one of the store's reader threads.
    public func grouped<V: Hashable & Sendable>(by keyPath: KeyPath<Root, V> & Sendable) async throws
        -> sending [V: [Root]]
    {
        let query = self
        return try await store.readerThreads.run { try query.grouped(by: keyPath) }
    }

    /// ``grouped(by:)-(KeyPath<Root,M?>)`` on one of the store's reader threads.
    public func grouped<M: Model>(by relationship: KeyPath<Root, M?> & Sendable) async throws
        -> sending [M.Key?: [Root]]
    {
        let query = self
        return try await store.readerThreads.run { try query.grouped(by: relationship) }
    }
}
