/// The write pipeline: the one way every write reaches a driver, in ordered stages.
///
/// 1. **Hooks and vetoes.** `willInsert`/`willUpdate`/`willDelete` run first; a `false` stops
///    the write with ``SharkError/vetoed(entity:operation:)`` before anything is written.
/// 2. **The driver write.** One intent — insert, update of the changed columns, delete — to the
///    write stage (`WriteStage.swift`), which calls the writer connection and records the
///    change. The object is remembered first, so a rollback puts its in-memory
///    state back along with the row; its change flags are cleared once the driver has the
///    row, and restored if the transaction rolls back.
/// 3. **In-transaction observers** (``TransactionObserver``), just before COMMIT: they see the
///    transaction's changes (savepoints that rolled back left none; vetoed writes never made
///    any) and may write through the same transaction; their own writes are not shown to them
///    again.
/// 4. **COMMIT.**
/// 5. **After-commit delivery**, outside the writer: the `did…` hooks, in the order of the
///    writes (events join here).
///
/// Raw SQL writes go through stages 2 to 5 too, reported per entity since their rows are
/// unknown (``Change/Operation/unknown``); an entity an observer protects refuses them.
extension WriteTransaction {
    /// Inserts or updates one object inside this transaction, after the new or changed
    /// objects its relationships hold (see `WritePipeline+Graph.swift`).
    @usableFromInline
    func write<M: Model>(_ object: M, schema: EntitySchema) throws {
        if schema.hasRelationships { return try writeGraph(from: object, as: .commit) }
        try writeObject(object, schema: schema)
    }

    /// Inserts `object`, or overwrites the stored row that has its key already (see
    /// ``Store/upsert(_:)``), after the objects its relationships hold, upserted alike.
    func upsert<M: Model>(_ object: M, schema: EntitySchema) throws {
        if schema.hasRelationships { return try writeGraph(from: object, as: .upsert) }
        try upsertObject(object, schema: schema)
    }

    /// Inserts or updates exactly this object.
    func writeObject<M: Model>(_ object: M, schema: EntitySchema) throws {
        let state = object._$shark
        if state.isPersisted && state.store === store {
            try update(object, state: state, schema: schema)
        } else {
            try insert(object, state: state, schema: schema)
        }
    }

    /// Upserts exactly this object: inserted, or, when a row with its key is stored, that
    /// row overwritten with every column.
    func upsertObject<M: Model>(_ object: M, schema: EntitySchema) throws {
        let state = object._$shark
        if state.isPersisted && state.store === store { return try writeObject(object, schema: schema) }
        let key = object.id.columnValue
        if schema.keyKind == .autoIncrement && key == .integer(0) { return try writeObject(object, schema: schema) }
        var stored = false
        try writer.read(.key(key), schema: schema) { _ in stored = true }
        guard stored else { return try writeObject(object, schema: schema) }
        // The row exists: an update of every column. The object is remembered as it is, a new
        // object, so a rollback gives it back unchanged rather than reloading the row's values.
        store.transactions.remember(object, state: state, in: store)
        var columns = ColumnSet()
        for column in 1..<schema.columns.count { columns.insert(Int32(column)) }
        object._$shark.adopt(into: store, changing: columns)
        guard !columns.isEmpty else { return object._$shark.didWrite(to: store) }
        try update(object, state: object._$shark, schema: schema)
    }

    private func insert<M: Model>(_ object: M, state: ModelState, schema: EntitySchema) throws {
        let key = object.id.columnValue
        let assignsKey = schema.keyKind == .autoIncrement && key == .integer(0)
        if schema.keyKind == .string, key == .text("") {
            throw SharkError.invalidKey(entity: schema.name, reason: "a String key must not be empty")
        }
        guard object.willInsert() else { throw SharkError.vetoed(entity: schema.name, operation: .insert) }
        let stack = store.transactions
        stack.remember(object, state: state, in: store)
        // The key as the hook left it: the row is written with that one.
        let assigned = try stage.insert(object, key: object.id.columnValue, assigningKey: assignsKey, schema: schema)
        if assignsKey, let assigned { object._sharkAssignKey(assigned) }
        object._$shark.didWrite(to: store)
        stack.afterCommit(.inserted(object))
    }

    private func update<M: Model>(_ object: M, state: ModelState, schema: EntitySchema) throws {
        let columns = state.dirty
        guard !columns.isEmpty else { return }
        if columns.contains(0) {
            throw SharkError.invalidKey(entity: schema.name, reason: "the key of a stored object cannot change")
        }
        guard object.willUpdate() else { throw SharkError.vetoed(entity: schema.name, operation: .update) }
        let stack = store.transactions
        stack.remember(object, state: state, in: store)
        guard try stage.update(object, key: object.id.columnValue, columns: columns, schema: schema) else {
            throw SharkError.notFound(entity: schema.name, key: "\(object.id)")
        }
        object._$shark.didWrite(to: store)
        stack.afterCommit(.updated(object))
    }

    /// Removes one object inside this transaction, applying the delete rules of the
    /// relationships that refer to it (see `WritePipeline+DeleteRules.swift`).
    func delete<M: Model>(_ object: M, schema: EntitySchema) throws {
        let state = object._$shark
        guard state.isPersisted, state.store === store else { throw SharkError.notPersisted(entity: schema.name) }
        guard object.willDelete() else { throw SharkError.vetoed(entity: schema.name, operation: .delete) }
        if try !store.referrers(of: schema.name, in: self).isEmpty {
            return try store.runSavepoint(inside: self) { savepoint in
                try savepoint.deleteApplyingRules(object, schema: schema)
            }
        }
        try removeRow(of: object, state: state, schema: schema)
    }

    /// Stage 2 of a removal whose hook has run: the driver delete, and the bookkeeping.
    func removeRow<M: Model>(of object: M, state: ModelState, schema: EntitySchema) throws {
        let stack = store.transactions
        stack.remember(object, state: state, in: store)
        let key = object.id.columnValue
        guard try stage.delete(key: key, schema: schema) else {
            throw SharkError.notFound(entity: schema.name, key: "\(object.id)")
        }
        // Not persisted, and no change flags: a re-commit inserts every column.
        object._$shark.isPersisted = false
        object._$shark.dirty = ColumnSet()
        stack.afterCommit(.deleted(object))
    }
}
