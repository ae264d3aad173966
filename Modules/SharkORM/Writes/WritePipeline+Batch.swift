/// Bulk commits (`commit([…])`): the stages of the write pipeline, run stage by stage over a
/// batch of objects instead of object by object, so that the driver writes the rows in one
/// tight loop.
///
/// Why: committing one object runs the core's bookkeeping, then the engine's code, then the
/// bookkeeping again. Over thousands of objects the two evict each other from the CPU's
/// instruction cache: callgrind's cache simulation counted three times the raw C loop's
/// instruction-cache misses for a bulk update, most of them in SQLite's own VDBE. Stage by
/// stage, each stays hot.
///
/// What an app sees is what committing the objects one by one gives, with two differences.
/// Every `will…` hook of a batch runs before its first row is written. And when the commit
/// fails (a veto, a unique violation, a row gone), the objects of the failing batch are left
/// exactly as they were, changes pending, rather than reloaded from their rows: the driver
/// wrote them, at most, inside the savepoint that is now rolled back, and their state is only
/// updated, and recorded for a later rollback, once the whole batch is written. A batch holds
/// consecutive objects that need the same statement: inserts with or without an assigned
/// key, or updates of the same columns.
///
/// The per-object loops are inlinable, so that they are specialized for each model in the
/// app's module: unspecialized, every property access is a call through a witness table
/// that copies (and retains) the object's state, and every array step looks up metadata.
/// The write stage is called once per batch.
extension WriteTransaction {
    /// Inserts or updates every object, in order.
    @inlinable
    func writeAll<M: Model>(_ objects: some Sequence<M>, schema: EntitySchema) throws {
        // Objects with relationships commit what they refer to first, object by object.
        if schema.hasRelationships {
            for object in objects { try write(object, schema: schema) }
            return
        }
        let stack = store.transactions
        let objects = Array(objects)
        let stamp = stack.currentStamp
        var batch = PendingWrites<M>()
        // The state is read field by field, in place: a copy of it would retain and release
        // its store and change set for every object.
        for position in 0..<objects.count {
            let object = objects[position]
            // Written before at this level (listed twice, say): its state depends on the
            // pending writes, so those go first, then this object on its own.
            if object._$shark.rememberedBy == stamp {
                try flush(&batch, schema: schema)
                try write(object, schema: schema)
                continue
            }
            if object._$shark.isPersisted && object._$shark.store === store {
                if object._$shark.dirty.isEmpty { continue }
                if object._$shark.dirty.contains(0) {
                    throw SharkError.invalidKey(entity: schema.name, reason: "the key of a stored object cannot change")
                }
                if !batch.isUpdate || batch.columns != object._$shark.dirty {
                    try flush(&batch, schema: schema)
                    batch.isUpdate = true
                    batch.columns = object._$shark.dirty
                }
                guard object.willUpdate() else { throw SharkError.vetoed(entity: schema.name, operation: .update) }
            } else {
                let key = object.id.columnValue
                if schema.keyKind == .string, key == .text("") {
                    throw SharkError.invalidKey(entity: schema.name, reason: "a String key must not be empty")
                }
                let assignsKey = schema.keyKind == .autoIncrement && key == .integer(0)
                if batch.isUpdate || batch.assignsKey != assignsKey {
                    try flush(&batch, schema: schema)
                    batch.isUpdate = false
                    batch.assignsKey = assignsKey
                }
                guard object.willInsert() else { throw SharkError.vetoed(entity: schema.name, operation: .insert) }
            }
            // Marked as written at this level, so a second appearance in the list is caught
            // above.
            object._$shark.rememberedBy = stamp
            batch.objects.append(object)
        }
        try flush(&batch, schema: schema)
    }

    /// Stage 2 for the whole batch; then, the batch written, each object's new state, and one
    /// record of the batch for rollback (with the objects' states before the write) and for
    /// after-commit delivery.
    @inlinable
    func flush<M: Model>(_ batch: inout PendingWrites<M>, schema: EntitySchema) throws {
        guard !batch.objects.isEmpty else { return }
        // The array goes to the batch's record; the next batch starts a new one.
        defer { batch.objects = [] }
        let stack = store.transactions
        if !batch.isUpdate {
            let assignsKey = batch.assignsKey
            let objects = batch.objects
            let keys = try stage.insert(objects, assigningKeys: assignsKey, schema: schema) {
                objects[$0].id.columnValue
            }
            var states: [ModelState] = []
            states.reserveCapacity(batch.objects.count)
            for position in 0..<batch.objects.count {
                let object = batch.objects[position]
                states.append(object._$shark)
                if assignsKey { object._sharkAssignKey(keys[position]) }
                object._$shark.didWrite(to: store)
            }
            stack.record(
                WrittenBatch(objects: batch.objects, inserted: true, assignedKeys: assignsKey, states: states))
        } else {
            let columns = batch.columns
            var keys: [Value] = []
            keys.reserveCapacity(batch.objects.count)
            for position in 0..<batch.objects.count { keys.append(batch.objects[position].id.columnValue) }
            if let missing = try stage.update(batch.objects, keys: keys, columns: columns, schema: schema) {
                throw SharkError.notFound(entity: schema.name, key: "\(batch.objects[missing].id)")
            }
            for position in 0..<batch.objects.count { batch.objects[position]._$shark.clearChanges() }
            stack.record(WrittenBatch(objects: batch.objects, inserted: false, assignedKeys: false, states: []))
        }
    }
}

/// Consecutive objects that need the same statement: inserts, with or without the key, or
/// updates of the same columns.
@usableFromInline
struct PendingWrites<M: Model> {
    @usableFromInline var isUpdate = false
    /// For inserts: whether the engine assigns the keys.
    @usableFromInline var assignsKey = false
    /// For updates: the columns written.
    @usableFromInline var columns = ColumnSet()
    @usableFromInline var objects: [M] = []

    @inlinable init() {}
}
