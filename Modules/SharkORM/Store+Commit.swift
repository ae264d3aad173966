extension Store {
    /// Inserts `object`, or writes its changed columns if it is already stored. Nothing is
    /// written, not even a statement, when a stored object has no changes.
    ///
    /// A new object with an `Int64` key gets the key the store assigns. Outside a
    /// ``transaction(_:)`` the commit is its own transaction.
    ///
    /// ```swift
    /// let person = Person()
    /// person.name = "Ada"
    /// try store.commit(person)     // INSERT; person.id is now set
    /// person.age = 36
    /// try store.commit(person)     // UPDATE "Person" SET "age" = ? WHERE "id" = ?
    /// try store.commit(person)     // no statement: nothing changed
    /// ```
    ///
    /// A commit writes the values the object holds; it does not re-read the row first. So a
    /// read-modify-write outside a transaction can lose a concurrent update: two threads that
    /// each fetch a balance of 100, add 10 and commit both write 110. Do the read and the write
    /// in one transaction, which holds the writer for its whole body, and the updates queue up:
    ///
    /// ```swift
    /// try store.transaction {
    ///     let account = try store.find(Account.self, id: id)!   // reads inside see the latest
    ///     account.balance += 10
    ///     try store.commit(account)
    /// }
    /// ```
    public func commit<M: Model>(_ object: M) throws {
        let schema = try schema(for: M.self)
        let state = object._$shark
        if state.isPersisted && state.store === self && state.dirty.isEmpty { return }
        // Inside a transaction one object is one statement, atomic on its own: no savepoint.
        try atomically { try write(object, schema: schema) }
    }

    /// Commits several objects in one transaction (a savepoint when already inside one).
    ///
    /// ```swift
    /// try store.commit([ada, grace, alan])
    /// ```
    public func commit<M: Model>(_ objects: some Sequence<M>) throws {
        let schema = try schema(for: M.self)
        try transaction {
            for object in objects { try write(object, schema: schema) }
        }
    }

    /// Removes `object` from the store. It keeps its values and can be committed again.
    ///
    /// ```swift
    /// try store.remove(person)
    /// ```
    public func remove<M: Model>(_ object: M) throws {
        let schema = try schema(for: M.self)
        let state = object._$shark
        guard state.isPersisted, state.store === self else { throw SharkError.notPersisted(entity: schema.name) }
        try atomically {
            guard object.willDelete() else { throw SharkError.vetoed(entity: schema.name, operation: .delete) }
            transactions.remember(object, state: state, in: self)
            guard try driver.writer.delete(key: object.id.columnValue, schema: schema) else {
                throw SharkError.notFound(entity: schema.name, key: "\(object.id)")
            }
            // Not persisted, and no change flags: a re-commit inserts every column.
            object._$shark.isPersisted = false
            object._$shark.dirty = ColumnSet()
            transactions.afterCommit(.deleted(object))
        }
    }

    /// Runs `body` in the current transaction, or in a new one when there is none.
    private func atomically(_ body: () throws -> Void) throws {
        if isInTransaction { try body() } else { try transaction(body) }
    }

    /// Writes one object inside the current transaction.
    private func write<M: Model>(_ object: M, schema: EntitySchema) throws {
        let state = object._$shark
        if state.isPersisted && state.store === self {
            try update(object, state: state, schema: schema)
        } else {
            try insert(object, state: state, schema: schema)
        }
    }

    private func insert<M: Model>(_ object: M, state: ModelState, schema: EntitySchema) throws {
        let key = object.id.columnValue
        let assignsKey = schema.keyKind == .autoIncrement && key == .integer(0)
        if schema.keyKind == .string, key == .text("") {
            throw SharkError.invalidKey(entity: schema.name, reason: "a String key must not be empty")
        }
        guard object.willInsert() else { throw SharkError.vetoed(entity: schema.name, operation: .insert) }
        transactions.remember(object, state: state, in: self)
        let assigned = try driver.writer.insert(object, schema: schema, includingKey: !assignsKey)
        if assignsKey, let assigned { object._sharkAssignKey(assigned) }
        object._$shark.didWrite(to: self)
        transactions.afterCommit(.inserted(object))
    }

    private func update<M: Model>(_ object: M, state: ModelState, schema: EntitySchema) throws {
        let columns = state.dirty.members
        guard !columns.isEmpty else { return }
        if columns.first == 0 {
            throw SharkError.invalidKey(entity: schema.name, reason: "the key of a stored object cannot change")
        }
        guard object.willUpdate() else { throw SharkError.vetoed(entity: schema.name, operation: .update) }
        transactions.remember(object, state: state, in: self)
        guard try driver.writer.update(object, columns: columns, schema: schema) else {
            throw SharkError.notFound(entity: schema.name, key: "\(object.id)")
        }
        object._$shark.didWrite(to: self)
        transactions.afterCommit(.updated(object))
    }
}
