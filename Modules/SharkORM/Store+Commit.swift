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
    public func commit<M: Model>(_ object: M) throws {
        let schema = try schema(for: M.self)
        if object._$shark.isPersisted && object._$shark.store === self && object._$shark.dirty.isEmpty {
            return
        }
        // Inside a transaction one object is one statement, atomic on its own: no savepoint.
        if isInTransaction {
            try write(object, schema: schema)
        } else {
            try transaction { try write(object, schema: schema) }
        }
    }

    /// Commits several objects in one transaction.
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
        guard object._$shark.isPersisted, object._$shark.store === self else {
            throw SharkError.notPersisted(entity: schema.name)
        }
        try atomically {
            guard object.willDelete() else { throw SharkError.vetoed(entity: schema.name, operation: .delete) }
            try rememberState(of: object)
            guard try driver.writer.delete(key: object.id.columnValue, schema: schema) else {
                throw SharkError.notFound(entity: schema.name, key: "\(object.id)")
            }
            object._$shark.isPersisted = false
            // Every column must be written again if the object is re-committed.
            object._$shark.dirty = ColumnSet()
            transactions.afterCommit { object.didDelete() }
        }
    }

    /// Runs `body` in the current transaction, or in a new one when there is none.
    private func atomically(_ body: () throws -> Void) throws {
        if isInTransaction { try body() } else { try transaction(body) }
    }

    /// Writes one object inside the current transaction.
    private func write<M: Model>(_ object: M, schema: EntitySchema) throws {
        if object._$shark.isPersisted && object._$shark.store === self {
            try update(object, schema: schema)
        } else {
            try insert(object, schema: schema)
        }
    }

    private func insert<M: Model>(_ object: M, schema: EntitySchema) throws {
        let key = object.id.columnValue
        let assignsKey = schema.keyKind == .autoIncrement && key == .integer(0)
        if schema.keyKind == .string, key == .text("") {
            throw SharkError.invalidKey(entity: schema.name, reason: "a String key must not be empty")
        }
        guard object.willInsert() else { throw SharkError.vetoed(entity: schema.name, operation: .insert) }
        try rememberState(of: object)
        let assigned = try driver.writer.insert(object, schema: schema, includingKey: !assignsKey)
        if assignsKey, let assigned { object._sharkAssignKey(assigned) }
        object._$shark.store = self
        object._$shark.isPersisted = true
        object._$shark.dirty = ColumnSet()
        transactions.afterCommit { object.didInsert() }
    }

    private func update<M: Model>(_ object: M, schema: EntitySchema) throws {
        let columns = object._$shark.dirty.members
        guard !columns.isEmpty else { return }
        if columns.first == 0 {
            throw SharkError.invalidKey(entity: schema.name, reason: "the key of a stored object cannot change")
        }
        guard object.willUpdate() else { throw SharkError.vetoed(entity: schema.name, operation: .update) }
        try rememberState(of: object)
        guard try driver.writer.update(object, columns: columns, schema: schema) else {
            throw SharkError.notFound(entity: schema.name, key: "\(object.id)")
        }
        object._$shark.dirty = ColumnSet()
        transactions.afterCommit { object.didUpdate() }
    }

    /// Lets a rollback of the current transaction level put `object` back.
    ///
    /// An object that was stored before is reloaded after the rollback, so it shows what
    /// the database holds again (its changes since its last successful commit are dropped,
    /// as a rollback drops them from the database). A new object gets back the values, key
    /// and change flags it had before the failed insert, ready to be committed again.
    private func rememberState<M: Model>(of object: M) throws {
        guard !transactions.remembers(object) else { return }
        let state = object._$shark
        if state.isPersisted && state.store === self {
            transactions.remember(object) {
                { [weak self] in
                    guard let self else { return }
                    if (try? self.refresh(object)) == nil {
                        object._$shark.isPersisted = false
                    }
                }
            }
        } else {
            let values = try object.snapshotValues()
            transactions.remember(object) {
                {
                    try? object._sharkRestore(from: values)
                    object._$shark = state
                }
            }
        }
    }
}
