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
extension WriteTransaction {
    /// Inserts or updates every object, in order.
    func writeAll<M: Model>(_ objects: some Sequence<M>, schema: EntitySchema) throws {
        let stack = store.transactions
        // An array (free when it already is one), walked by index: this code is generic and
        // not specialized, and iterating a generic sequence costs a dynamic call per step.
        let objects = Array(objects)
        stack.reserve(objects.count)
        var batch = PendingWrites<M>()
        batch.objects.reserveCapacity(objects.count)
        for position in 0..<objects.count {
            let object = objects[position]
            let state = object._$shark
            // Written before at this level (listed twice, say): its state depends on the
            // pending writes, so those go first, then this object on its own.
            if state.rememberedBy == stack.currentStamp {
                try flush(&batch, schema: schema)
                try write(object, schema: schema)
                continue
            }
            let operation: PendingWrites<M>.Operation
            if state.isPersisted && state.store === store {
                if state.dirty.isEmpty { continue }
                if state.dirty.contains(0) {
                    throw SharkError.invalidKey(entity: schema.name, reason: "the key of a stored object cannot change")
                }
                operation = .update(state.dirty)
            } else {
                let key = object.id.columnValue
                if schema.keyKind == .string, key == .text("") {
                    throw SharkError.invalidKey(entity: schema.name, reason: "a String key must not be empty")
                }
                operation = .insert(assignsKey: schema.keyKind == .autoIncrement && key == .integer(0))
            }
            if operation != batch.operation {
                try flush(&batch, schema: schema)
                batch.operation = operation
            }
            // Stage 1: hooks and vetoes. The object is marked as written at this level, so a
            // second appearance in the list is caught above.
            switch operation {
            case .insert:
                guard object.willInsert() else { throw SharkError.vetoed(entity: schema.name, operation: .insert) }
            case .update:
                guard object.willUpdate() else { throw SharkError.vetoed(entity: schema.name, operation: .update) }
            }
            object._$shark.rememberedBy = stack.currentStamp
            batch.objects.append(object)
        }
        try flush(&batch, schema: schema)
    }

    /// Stage 2 for the whole batch; then, the batch written, each object's rollback record
    /// (taken from its state before the write), its new state and its after-commit entry.
    private func flush<M: Model>(_ batch: inout PendingWrites<M>, schema: EntitySchema) throws {
        guard !batch.objects.isEmpty else { return }
        defer { batch.objects.removeAll(keepingCapacity: true) }
        let stack = store.transactions
        switch batch.operation {
        case .insert(let assignsKey):
            let keys = try writer.insert(batch.objects, schema: schema, includingKey: !assignsKey)
            // Index loops: this code is generic and not specialized, where `enumerated()` and
            // `map` would look up type metadata on every step.
            for position in 0..<batch.objects.count {
                let object = batch.objects[position]
                stack.addRestorer(for: object, state: object._$shark, in: store)
                if assignsKey { object._sharkAssignKey(keys[position]) }
                object._$shark.didWrite(to: store)
                stack.afterCommit(.inserted(object))
                if stack.recordsChanges {
                    stack.record(schema: schema, key: object.id.columnValue, .insert, ColumnSet())
                }
            }
        case .update(let columns):
            var keys: [Value] = []
            keys.reserveCapacity(batch.objects.count)
            for position in 0..<batch.objects.count { keys.append(batch.objects[position].id.columnValue) }
            if let missing = try writer.update(batch.objects, keys: keys, columns: columns, schema: schema) {
                throw SharkError.notFound(entity: schema.name, key: "\(batch.objects[missing].id)")
            }
            for position in 0..<batch.objects.count {
                let object = batch.objects[position]
                stack.addRestorer(for: object, state: object._$shark, in: store)
                object._$shark.didWrite(to: store)
                stack.afterCommit(.updated(object))
                if stack.recordsChanges { stack.record(schema: schema, key: keys[position], .update, columns) }
            }
        }
    }
}

/// Consecutive objects that need the same statement.
struct PendingWrites<M: Model> {
    enum Operation: Equatable {
        case insert(assignsKey: Bool)
        case update(ColumnSet)
    }

    var operation = Operation.insert(assignsKey: false)
    var objects: [M] = []
}
