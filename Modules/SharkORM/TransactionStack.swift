/// The open transaction and savepoints of a store, innermost last.
///
/// Each level remembers, for every object it wrote, how to put the object's in-memory state
/// back (so a rollback restores objects as well as rows), and which `did…` hooks to run once
/// the outermost transaction commits. Only touched under the store's write lock.
final class TransactionStack: @unchecked Sendable {
    struct Level {
        /// The savepoint name; nil for the outermost transaction.
        let savepoint: String?
        /// How to restore each object first written at this level.
        var restorers: [ObjectIdentifier: () -> Void] = [:]
        /// In the order the writes happened.
        var afterCommit: [() -> Void] = []
        /// Undo actions beyond objects (forgetting a schema applied inside the level, say).
        var onRollback: [() -> Void] = []
    }

    private(set) var levels: [Level] = []
    private var savepointCounter = 0

    var isEmpty: Bool { levels.isEmpty }

    func push() -> Level {
        let level: Level
        if levels.isEmpty {
            level = Level(savepoint: nil)
        } else {
            savepointCounter += 1
            level = Level(savepoint: "shark_sp_\(savepointCounter)")
        }
        levels.append(level)
        return level
    }

    /// Records how to restore `object`, unless this level already knows (the first state
    /// seen in a level is the one to go back to).
    func remember(_ object: AnyObject, restore: () throws -> (() -> Void)) rethrows {
        let id = ObjectIdentifier(object)
        guard !levels.isEmpty, levels[levels.count - 1].restorers[id] == nil else { return }
        levels[levels.count - 1].restorers[id] = try restore()
    }

    /// Whether the innermost level already has a restorer for `object`.
    func remembers(_ object: AnyObject) -> Bool {
        levels.last?.restorers[ObjectIdentifier(object)] != nil
    }

    func afterCommit(_ action: @escaping () -> Void) {
        levels[levels.count - 1].afterCommit.append(action)
    }

    func onRollback(_ action: @escaping () -> Void) {
        levels[levels.count - 1].onRollback.append(action)
    }

    /// Ends the innermost level successfully. A savepoint hands its restorers (where the
    /// parent has none) and hooks to the parent; the outermost level returns its hooks to run.
    func popCommitted() -> [() -> Void] {
        let level = levels.removeLast()
        guard !levels.isEmpty else {
            savepointCounter = 0
            return level.afterCommit
        }
        for (id, restore) in level.restorers where levels[levels.count - 1].restorers[id] == nil {
            levels[levels.count - 1].restorers[id] = restore
        }
        levels[levels.count - 1].afterCommit += level.afterCommit
        levels[levels.count - 1].onRollback += level.onRollback
        return []
    }

    /// Ends the innermost level by rolling back: restores every object it wrote.
    func popRolledBack() {
        let level = levels.removeLast()
        for restore in level.restorers.values { restore() }
        for action in level.onRollback.reversed() { action() }
        if levels.isEmpty { savepointCounter = 0 }
    }
}
