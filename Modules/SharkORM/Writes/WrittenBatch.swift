/// The objects of one batch of a bulk commit, recorded once, as one entry, both for rollback
/// and for after-commit delivery, instead of one rollback record and one after-commit entry
/// per object (which, for 100,000 objects, wrote 10 MB of entries for nothing in the common
/// case of a commit that succeeds).
@usableFromInline
final class WrittenBatch<M: Model>: WrittenObjects {
    @usableFromInline let objects: [M]
    @usableFromInline let inserted: Bool
    /// For inserts: whether the engine assigned the keys (a rollback takes them back).
    @usableFromInline let assignedKeys: Bool
    /// For inserts: each object's state before the write, which a rollback puts back.
    @usableFromInline let states: [ModelState]

    @inlinable
    init(objects: [M], inserted: Bool, assignedKeys: Bool, states: [ModelState]) {
        self.objects = objects
        self.inserted = inserted
        self.assignedKeys = assignedKeys
        self.states = states
    }

    /// Newest first, as rollbacks restore.
    @usableFromInline
    func restore(in store: Store) {
        for position in objects.indices.reversed() {
            let object = objects[position]
            if inserted {
                if assignedKeys { object._sharkAssignKey(0) }
                object._$shark = states[position]
            } else if (try? store.refresh(object)) == nil {
                object._$shark.isPersisted = false
            }
        }
    }

    @usableFromInline
    func runHooks() {
        for object in objects {
            if inserted { object.didInsert() } else { object.didUpdate() }
        }
    }
}

/// A ``WrittenBatch`` of any model.
@usableFromInline
protocol WrittenObjects: AnyObject {
    func restore(in store: Store)
    func runHooks()
}
