/// What one committed transaction changed, delivered after COMMIT to everyone listening
/// through ``Store/events()``, ``Store/events(for:)`` or ``Store/onCommit(queue:_:)``.
///
/// ```swift
/// for await event in store.events() {
///     if let people = event.entities["Person"] {
///         print("commit \(event.sequence): \(people.inserted.count) new people")
///     }
/// }
/// ```
///
/// One event per transaction, never one for work that rolled back, a savepoint rolled back
/// inside a committed transaction, or a vetoed write. Each key appears once, with the net
/// effect of the transaction on its row: inserted then updated is inserted, inserted then
/// removed is nothing at all, removed then inserted again is updated.
public struct CommitEvent: Sendable, Hashable {
    /// The store's commit counter: one more for every transaction committed since the store
    /// was opened, so an event's number is greater than that of every event before it.
    /// Transactions that changed nothing count but raise no event.
    public let sequence: UInt64
    /// Who made the changes: the app, or a sync import.
    public let origin: ChangeOrigin
    /// Whether another store made the commit: another process, machine or `Store` instance
    /// writing the same database (PostgreSQL), heard of after its COMMIT. ``origin`` is what
    /// it was there. Such commits arrive in the order they committed, each once; they also
    /// count in ``sequence``.
    public let isRemote: Bool
    /// The changes, by entity name.
    public let entities: [String: EntityChanges]

    /// An event as the store delivers it; for tests that feed code written against events.
    ///
    /// ```swift
    /// var people = EntityChanges()
    /// people.inserted = [.integer(1)]
    /// let event = CommitEvent(sequence: 1, origin: .local, entities: ["Person": people])
    /// ```
    public init(sequence: UInt64, origin: ChangeOrigin, isRemote: Bool = false, entities: [String: EntityChanges]) {
        self.sequence = sequence
        self.origin = origin
        self.isRemote = isRemote
        self.entities = entities
    }

    /// The changes to `M`'s entity, with typed keys; nil when the transaction did not touch it.
    ///
    /// ```swift
    /// if let people = event.changes(for: Person.self) { print(people.inserted) }
    /// ```
    public func changes<M: Model>(for type: M.Type) -> ModelChanges<M>? {
        entities[M._sharkEntityName].map {
            ModelChanges(sequence: sequence, origin: origin, isRemote: isRemote, changes: $0)
        }
    }
}

/// The net changes one transaction made to the rows of one entity.
///
/// ```swift
/// for await event in store.events() {
///     guard let changes = event.entities["Person"] else { continue }
///     for (key, properties) in changes.updated { print(key, properties.sorted()) }
/// }
/// ```
public struct EntityChanges: Sendable, Hashable {
    /// The keys of the rows inserted, in the order first written.
    public var inserted: [Value] = []
    /// The keys of the rows updated, with the names of the properties that changed.
    public var updated: [Value: Set<String>] = [:]
    /// The keys of the rows removed, in the order removed.
    public var removed: [Value] = []
    /// Raw SQL wrote to the entity, or a sync import changed more than 10,000 of its rows
    /// (listing each would cost memory in proportion to the import): which rows, and how, is
    /// unknown, so anything derived from the entity must be read again.
    public var hasUnknownChanges = false

    /// No changes yet; fill the lists to build an event by hand (see ``CommitEvent/init(sequence:origin:isRemote:entities:)``).
    public init() {}

    /// Whether nothing is left once the transaction's changes are netted out.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && removed.isEmpty && !hasUnknownChanges }
}

/// The changes one transaction made to one model's rows, keyed by the model's key type.
///
/// ```swift
/// for await people in store.events(for: Person.self) {
///     print(people.inserted, people.updated.keys, people.removed)
/// }
/// ```
public struct ModelChanges<M: Model>: Sendable {
    /// The commit's number (see ``CommitEvent/sequence``).
    public let sequence: UInt64
    /// Who made the changes.
    public let origin: ChangeOrigin
    /// Whether another store made the commit (see ``CommitEvent/isRemote``).
    public let isRemote: Bool
    /// Keys of the objects inserted.
    public let inserted: [M.Key]
    /// Keys of the objects updated, with the names of the properties that changed.
    public let updated: [M.Key: Set<String>]
    /// Keys of the objects removed.
    public let removed: [M.Key]
    /// Raw SQL wrote to the entity (see ``EntityChanges/hasUnknownChanges``).
    public let hasUnknownChanges: Bool

    init(sequence: UInt64, origin: ChangeOrigin, isRemote: Bool, changes: EntityChanges) {
        self.sequence = sequence
        self.origin = origin
        self.isRemote = isRemote
        // A key stored by another model class of the same entity (an older version, raw
        // rows) may not convert to this model's key type: such keys are left out here and
        // remain in the untyped `EntityChanges`.
        inserted = changes.inserted.compactMap { try? M.Key(columnValue: $0) }
        removed = changes.removed.compactMap { try? M.Key(columnValue: $0) }
        var updated: [M.Key: Set<String>] = [:]
        for (key, properties) in changes.updated {
            if let key = try? M.Key(columnValue: key) { updated[key] = properties }
        }
        self.updated = updated
        hasUnknownChanges = changes.hasUnknownChanges
    }
}

/// Nets out the changes of one transaction, row by row, in the order they happened.
struct CommitEventBuilder {
    private enum RowState {
        case inserted
        case updated(ColumnSet)
        case removed
        /// Inserted then removed inside the transaction: nothing to report.
        case transient
    }

    private struct Entity {
        let schema: EntitySchema
        var states: [Value: RowState] = [:]
        /// Keys in the order first written, so the lists come out in that order.
        var order: [Value] = []
        var hasUnknownChanges = false
    }

    private var entities: [String: Entity] = [:]

    mutating func add(_ change: RecordedChange) {
        let name = change.schema.name
        var entity = entities.removeValue(forKey: name) ?? Entity(schema: change.schema)
        defer { entities[name] = entity }
        guard let key = change.key, change.operation != .unknown else {
            entity.hasUnknownChanges = true
            return
        }
        let previous = entity.states[key]
        if previous == nil { entity.order.append(key) }
        let next: RowState
        switch (change.operation, previous) {
        case (.insert, .removed?):
            // Removed, then inserted again: every column may differ.
            var every = ColumnSet()
            for column in change.schema.columns.indices { every.insert(Int32(column)) }
            next = .updated(every)
        case (.insert, _):
            next = .inserted
        case (.update, .inserted?), (.update, .transient?):
            next = previous!
        case (.update, .updated(let columns)?):
            var union = columns
            for column in change.columns { union.insert(column) }
            next = .updated(union)
        case (.update, _):
            next = .updated(change.columns)
        case (.delete, .inserted?), (.delete, .transient?):
            next = .transient
        case (.delete, _):
            next = .removed
        case (.unknown, _):
            return
        }
        entity.states[key] = next
    }

    /// The net changes by entity; entities left with none are left out.
    func changes() -> [String: EntityChanges] {
        var result: [String: EntityChanges] = [:]
        for (name, entity) in entities {
            var changes = EntityChanges()
            changes.hasUnknownChanges = entity.hasUnknownChanges
            for key in entity.order {
                switch entity.states[key] {
                case .inserted?: changes.inserted.append(key)
                case .updated(let columns)?:
                    changes.updated[key] = Set(columns.map { entity.schema.columns[Int($0)].name })
                case .removed?: changes.removed.append(key)
                case .transient?, nil: break
                }
            }
            if !changes.isEmpty { result[name] = changes }
        }
        return result
    }
}
