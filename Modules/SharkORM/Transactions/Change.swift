/// One change a transaction made to a stored row, as the write pipeline reports it to
/// ``TransactionObserver``s (and, after commit, to events).
///
/// ```swift
/// for change in changes where change.operation == .update {
///     print(change.entity, change.key!, change.changedColumns)
/// }
/// ```
public struct Change: Sendable, Hashable {
    /// What happened to the row.
    public enum Operation: String, Sendable, Hashable {
        case insert, update, delete
        /// Raw SQL wrote to the entity: which rows, and how, is unknown.
        case unknown
    }

    /// The entity (table) written.
    public var entity: String
    /// The row's key; nil for raw SQL writes, which report only the entity.
    public var key: Value?
    /// What happened.
    public var operation: Operation
    /// The columns written: every column for an insert, the changed ones for an update, none
    /// for a delete or an unknown write.
    public var changedColumns: [String]
    /// Who made the change.
    public var origin: ChangeOrigin

    public init(entity: String, key: Value?, operation: Operation, changedColumns: [String], origin: ChangeOrigin) {
        self.entity = entity
        self.key = key
        self.operation = operation
        self.changedColumns = changedColumns
        self.origin = origin
    }
}

/// Who made a change.
///
/// ```swift
/// let local = changes.filter { $0.origin == .local }
/// ```
public enum ChangeOrigin: Sendable, Hashable {
    /// The app, through this store.
    case local
    /// Replayed from elsewhere (a sync import), named by its source.
    case imported(String)
}

/// A change as the pipeline records it while the transaction runs: no strings built, no
/// arrays allocated, so recording costs little on bulk writes. Turned into a ``Change`` only
/// when an observer asks.
struct RecordedChange {
    /// The entity's schema, shared by reference among the changes of one entity: a bulk write
    /// records thousands of changes, and a copied `EntitySchema` is several reference counts.
    let shared: SharedSchema
    let key: Value?
    let operation: Change.Operation
    let columns: ColumnSet
    let origin: ChangeOrigin
    /// Written by a transaction observer: reported to events, never to observers again.
    let byObserver: Bool

    var schema: EntitySchema { shared.schema }

    var change: Change { change(insertedColumns: nil) }

    /// The public form; `insertedColumns`, when given, are the schema's column names (an
    /// insert names them all), computed once by the caller for many changes.
    func change(insertedColumns: [String]?) -> Change {
        // Through `shared.schema` each time: a copy of the schema would retain all its parts.
        let names: [String]
        switch operation {
        case .insert: names = insertedColumns ?? shared.schema.columns.map(\.name)
        case .update: names = columns.map { shared.schema.columns[Int($0)].name }
        case .delete, .unknown: names = []
        }
        return Change(
            entity: shared.schema.name, key: key, operation: operation, changedColumns: names, origin: origin)
    }
}

/// An entity schema held by reference (see ``RecordedChange/shared``).
final class SharedSchema: Sendable {
    let schema: EntitySchema

    init(_ schema: EntitySchema) { self.schema = schema }
}
