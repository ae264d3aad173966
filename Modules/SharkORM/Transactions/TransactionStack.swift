/// The open transaction and savepoints of a store, innermost last.
///
/// Each level remembers how to put back the in-memory state of every object it wrote (so a
/// rollback restores objects as well as rows), and which `did…` hooks to run once the
/// outermost transaction commits. Only touched under the store's write lock.
///
/// Bulk commits record one entry per object, so entries are enums rather than closures and
/// duplicates within a level are skipped with a stamp kept in the object rather than a hash
/// lookup: recording costs no allocation and no hashing.
@usableFromInline
final class TransactionStack: @unchecked Sendable {
    struct Level {
        /// The savepoint name; nil for the outermost transaction.
        let savepoint: String?
        /// Unique per level for the life of the store: the stamp objects carry once recorded.
        let stamp: UInt64
        /// How to restore objects written at this level, in the order first written.
        var restorers: [Restorer] = []
        /// In the order the writes happened.
        var afterCommit: [CommittedWrite] = []
        /// Undo actions beyond objects (forgetting a schema applied inside the level, say).
        var onRollback: [() -> Void] = []
        /// The changes of this level, for observers and events; recorded only when someone
        /// listens (see `recordsChanges`).
        var changes: [RecordedChange] = []
        /// How many imported changes of each entity this level recorded one by one.
        var importedCounts: [String: Int] = [:]
        /// The entities whose imported changes this level records as one change of unknown
        /// rows (see ``importedRowsRecordedOneByOne``).
        var collapsedImports: Set<String> = []
    }

    /// The most imported changes of one entity a transaction records one by one: beyond it,
    /// they are one change of unknown rows, as raw SQL's are. An import of ten million rows
    /// would otherwise hold ten million changes (and build as many for its commit event);
    /// observers of the entity refetch, as after raw SQL.
    static let importedRowsRecordedOneByOne = 10_000

    // Unchecked: only touched under the store's write lock, and by every object of a bulk
    // commit, where run-time exclusivity checks cost more than the bookkeeping itself.
    @exclusivity(unchecked) private(set) var levels: [Level] = []
    private var savepointCounter = 0
    private var stampCounter: UInt64 = 0
    /// Whether the open transaction records its changes: read once when it begins.
    @usableFromInline private(set) var recordsChanges = false
    /// The schemas the last changes recorded referred to, shared with the next changes of the
    /// same entities (a bulk write comes one entity at a time; a graph, a few in turn).
    private var recentSchemas: [SharedSchema] = []

    var isEmpty: Bool { levels.isEmpty }

    /// The stamp of the innermost level: an object whose `rememberedBy` equals it was
    /// written at this level already.
    @usableFromInline var currentStamp: UInt64 { levels.last?.stamp ?? 0 }

    /// The stamp of the outermost level: the open transaction's identity (0 when none).
    var outermostStamp: UInt64 { levels.first?.stamp ?? 0 }

    @discardableResult
    func push(recordingChanges: Bool) -> Level {
        stampCounter += 1
        let level: Level
        if levels.isEmpty {
            level = Level(savepoint: nil, stamp: stampCounter)
            recordsChanges = recordingChanges
        } else {
            savepointCounter += 1
            level = Level(savepoint: "shark_sp_\(savepointCounter)", stamp: stampCounter)
        }
        levels.append(level)
        return level
    }

    /// Records a change at the innermost level (the write stage's to call: it knows the role
    /// a write is made in, so who the change is from and whether observers see it).
    func record(
        schema: EntitySchema, key: Value?, _ operation: Change.Operation, _ columns: ColumnSet, origin: ChangeOrigin,
        byObserver: Bool
    ) {
        // Equal schemas usually share their storage, which `==` checks first.
        let shared: SharedSchema
        if let recent = recentSchemas.first(where: { $0.schema == schema }) {
            shared = recent
        } else {
            shared = SharedSchema(schema)
            if recentSchemas.count == 4 { recentSchemas.removeFirst() }
            recentSchemas.append(shared)
        }
        if case .imported = origin, !byObserver, key != nil {
            guard !levels.contains(where: { $0.collapsedImports.contains(schema.name) }) else { return }
            let count = levels[levels.count - 1].importedCounts[schema.name, default: 0] + 1
            levels[levels.count - 1].importedCounts[schema.name] = count
            if count > Self.importedRowsRecordedOneByOne {
                collapseImports(of: shared, origin: origin)
                return
            }
        }
        levels[levels.count - 1].changes.append(
            RecordedChange(
                shared: shared, key: key, operation: operation, columns: columns, origin: origin,
                byObserver: byObserver))
    }

    /// Replaces the innermost level's imported changes of `shared`'s entity by one change of
    /// unknown rows, which later ones join.
    private func collapseImports(of shared: SharedSchema, origin: ChangeOrigin) {
        let name = shared.schema.name
        let last = levels.count - 1
        levels[last].changes.removeAll { change in
            if case .imported = change.origin, !change.byObserver, change.key != nil {
                return change.shared.schema.name == name
            }
            return false
        }
        levels[last].collapsedImports.insert(name)
        levels[last].changes.append(
            RecordedChange(
                shared: SharedSchema(EntitySchema(name: name, keyKind: .autoIncrement, columns: [])), key: nil,
                operation: .unknown, columns: ColumnSet(), origin: origin, byObserver: false))
    }

    /// The changes observers have not seen, once every level has been folded into the
    /// outermost (only the outermost is open when observers run).
    func changesForObservers() -> [Change] {
        guard let outermost = levels.first else { return [] }
        // Every insert names every column: one array per entity, shared by its inserts.
        var insertedColumns: [ObjectIdentifier: [String]] = [:]
        var lastInserted: (id: ObjectIdentifier, names: [String])?
        var changes: [Change] = []
        changes.reserveCapacity(outermost.changes.count)
        for recorded in outermost.changes where !recorded.byObserver {
            guard recorded.operation == .insert else {
                changes.append(recorded.change)
                continue
            }
            // Inserts come in runs of one entity: the last entity's names, without a lookup.
            let id = ObjectIdentifier(recorded.shared)
            if lastInserted?.id != id {
                let names =
                    insertedColumns[id]
                    ?? {
                        let names = recorded.shared.schema.columns.map(\.name)
                        insertedColumns[id] = names
                        return names
                    }()
                lastInserted = (id, names)
            }
            changes.append(recorded.change(insertedColumns: lastInserted!.names))
        }
        return changes
    }

    /// Every change of the outermost level (savepoints fold into it as they end).
    var outermostChanges: [RecordedChange] { levels.first?.changes ?? [] }

    /// Records how to restore `object` unless the innermost level already has (the first
    /// state seen in a level is the one to go back to).
    func remember<M: Model>(_ object: M, state: ModelState, in store: Store) {
        guard let last = levels.indices.last else { return }
        let stamp = levels[last].stamp
        guard state.rememberedBy != stamp else { return }
        object._$shark.rememberedBy = stamp
        if state.isPersisted && state.store === store {
            levels[last].restorers.append(.reload(object))
        } else {
            levels[last].restorers.append(.unsaved(object, key: object.id.columnValue, state: state))
        }
    }

    /// Records a batch of a bulk commit at the innermost level: how to restore its objects,
    /// and their `did…` hooks.
    @usableFromInline
    func record(_ batch: any WrittenObjects) {
        levels[levels.count - 1].restorers.append(.batch(batch))
        levels[levels.count - 1].afterCommit.append(.batch(batch))
    }

    @usableFromInline
    func afterCommit(_ write: CommittedWrite) {
        levels[levels.count - 1].afterCommit.append(write)
    }

    func onRollback(_ action: @escaping () -> Void) {
        levels[levels.count - 1].onRollback.append(action)
    }

    /// Ends the innermost level successfully. A savepoint hands its restorers and hooks to
    /// its parent (restorers run newest first, so the parent's older states still win); the
    /// outermost level returns the writes whose hooks must run now.
    func popCommitted() -> [CommittedWrite] {
        let level = levels.removeLast()
        guard !levels.isEmpty else {
            savepointCounter = 0
            return level.afterCommit
        }
        let parent = levels.count - 1
        levels[parent].restorers += level.restorers
        levels[parent].afterCommit += level.afterCommit
        levels[parent].onRollback += level.onRollback
        levels[parent].changes += level.changes
        levels[parent].collapsedImports.formUnion(level.collapsedImports)
        levels[parent].importedCounts.merge(level.importedCounts, uniquingKeysWith: +)
        return []
    }

    /// Ends the innermost level by rolling back: restores every object it wrote, newest
    /// first, so each object ends in the oldest state recorded for it.
    func popRolledBack(in store: Store) {
        let level = levels.removeLast()
        for restorer in level.restorers.reversed() { restorer.restore(in: store) }
        for action in level.onRollback.reversed() { action() }
        if levels.isEmpty { savepointCounter = 0 }
    }
}

/// How to put one object back after a rollback.
enum Restorer {
    /// A stored object: reloaded from the database, which the rollback put back.
    case reload(any Model)
    /// A new object: an insert changed only its key and state, so those are put back.
    case unsaved(any Model, key: Value, state: ModelState)
    /// The objects of one batch of a bulk commit.
    case batch(any WrittenObjects)

    func restore(in store: Store) {
        switch self {
        case .reload(let object):
            if (try? store.refresh(object)) == nil { object._$shark.isPersisted = false }
        case .unsaved(let object, let key, let state):
            if case .integer(let value) = key, type(of: object)._sharkKeyKind == .autoIncrement {
                object._sharkAssignKey(value)
            }
            object._$shark = state
        case .batch(let batch):
            batch.restore(in: store)
        }
    }
}

/// A write whose `did…` hook runs once the outermost transaction commits.
@usableFromInline
enum CommittedWrite {
    case inserted(any Model)
    case updated(any Model)
    case deleted(any Model)
    /// Every object of one batch of a bulk commit, in order.
    case batch(any WrittenObjects)

    func runHook() {
        switch self {
        case .batch(let batch): batch.runHooks()
        case .inserted(let object): object.didInsert()
        case .updated(let object): object.didUpdate()
        case .deleted(let object): object.didDelete()
        }
    }
}
