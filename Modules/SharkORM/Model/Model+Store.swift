extension Model {
    /// A query over this model in `store`, or in ``Store/default`` when none is given.
    ///
    /// ```swift
    /// let people = try Person.query(in: store).where(\.age > 30).fetch()
    /// ```
    public static func query(in store: Store? = nil) throws -> Query<Self> {
        guard let store = store ?? Store.default else { throw SharkError.noStore }
        return Query(Self.self, in: store)
    }

    /// Commits this object to its own store, or to ``Store/default`` if it has none yet.
    ///
    /// ```swift
    /// person.age += 1
    /// try person.commit()
    /// ```
    public func commit() throws {
        guard let store = _$shark.store ?? Store.default else { throw SharkError.noStore }
        try store.commit(self)
    }

    /// Removes this object from its store.
    public func remove() throws {
        guard let store = _$shark.store else { throw SharkError.notPersisted(entity: Self._sharkEntityName) }
        try store.remove(self)
    }

    /// Reloads this object's values from its store.
    public func refresh() throws {
        guard let store = _$shark.store else { throw SharkError.notPersisted(entity: Self._sharkEntityName) }
        try store.refresh(self)
    }
}
