extension Store {
    /// Inserts `object`, or writes its changed columns if it is already stored. Nothing is
    /// written, not even a statement, when a stored object has no changes.
    ///
    /// A new object with an `Int64` key gets the key the store assigns. Inside a transaction
    /// (`write(_:)`, `transaction(_:)`) the commit joins it; otherwise it is its own.
    ///
    /// ```swift
    /// let person = Person()
    /// person.name = "Ada"
    /// try store.commit(person)     // INSERT; person.id is now set
    /// person.age = 36
    /// try store.commit(person)     // UPDATE of the age column only
    /// try store.commit(person)     // no statement: nothing changed
    /// ```
    ///
    /// A commit writes the values the object holds; it does not re-read the row first. So a
    /// read-modify-write outside a transaction can lose a concurrent update: two threads that
    /// each fetch a balance of 100, add 10 and commit both write 110. Do the read and the write
    /// in one transaction, which holds the writer for its whole body, and the updates queue up:
    ///
    /// ```swift
    /// try store.write { tx in
    ///     let account = try tx.find(Account.self, id: id)!   // reads inside see the latest
    ///     account.balance += 10
    ///     try tx.commit(account)
    /// }
    /// ```
    public func commit<M: Model>(_ object: M) throws {
        let schema = try preparedSchema(for: M.self)
        let state = object._$shark
        if state.isPersisted && state.store === self && state.dirty.isEmpty { return }
        if let open = try activeTransaction() { return try open.write(object, schema: schema) }
        try runOutermostTransaction { try $0.write(object, schema: schema) }
    }

    /// Commits several objects in one transaction (a savepoint when already inside one).
    ///
    /// ```swift
    /// try store.commit([ada, grace, alan])
    /// ```
    @inlinable
    public func commit<M: Model>(_ objects: some Sequence<M>) throws {
        if let open = try activeTransaction() { return try open.commit(objects) }
        let schema = try preparedSchema(for: M.self)
        try runOutermostTransaction { try $0.writeAll(objects, schema: schema) }
    }

    /// Inserts `object`, or, when a row with its key is stored already, overwrites that row
    /// with every one of the object's columns: for objects whose key the app chooses (`UUID`,
    /// `String`), built from data received elsewhere. The hooks are those of what happens:
    /// `willInsert`/`didInsert`, or `willUpdate`/`didUpdate`. An object with a store-assigned
    /// `Int64` key still 0 is inserted.
    ///
    /// ```swift
    /// let setting = Setting(id: "theme", value: "dark")
    /// try store.upsert(setting)      // inserted, or the stored "theme" overwritten
    /// ```
    public func upsert<M: Model>(_ object: M) throws {
        let schema = try preparedSchema(for: M.self)
        if let open = try activeTransaction() { return try open.upsert(object) }
        try runOutermostTransaction { try $0.upsert(object, schema: schema) }
    }

    /// Removes `object` from the store. It keeps its values and can be committed again.
    ///
    /// ```swift
    /// try store.remove(person)
    /// ```
    public func remove<M: Model>(_ object: M) throws {
        let schema = try preparedSchema(for: M.self)
        if let open = try activeTransaction() { return try open.delete(object, schema: schema) }
        try runOutermostTransaction { try $0.delete(object, schema: schema) }
    }
}
