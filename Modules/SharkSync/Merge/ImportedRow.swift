import Foundation
@_spi(SharkReplication) import SharkORM

/// One row of an entity as an import leaves it: its merged state, and the row to write, in
/// the entity's column order.
struct ImportedRow {
    var key: Value
    var state: RowState
    /// The row to insert (the winning values, the column defaults elsewhere) or, for a row
    /// the store has, the winning values at their places (`written`), NULL elsewhere.
    var values: [Value]
    /// The columns whose value won: what an update of a stored row writes.
    var written: ColumnSet
    /// Whether the store has the row (it is updated or removed, not inserted).
    let isPresent: Bool
    /// Whether the store had a state for the row (it is replaced, not inserted).
    let hadState: Bool
}

/// Merges the incoming rows of one entity of a file into ``ImportedRow``s, positionally: the
/// file's columns are matched to the entity's once, not by name for every value.
struct ImportedRows {
    let schema: EntitySchema
    /// The local name of each of the file's columns (by position).
    let names: [String]
    /// Where each of the file's columns sits in the entity's rows; nil where it has no such column.
    let positions: [Int?]
    /// The entity's non-key columns.
    let here: Set<String>
    /// The merge rules of its columns that have a policy (see ``MergePolicy``).
    let rules: [String: MergeRule]
    /// Whether no two of the file's columns land on one column here (a file made with a
    /// rename on one side and the old name on the other could): rows then fill by position.
    private let fillsByPosition: Bool

    init(schema: EntitySchema, names: [String], positions: [Int?], here: Set<String>, rules: [String: MergeRule]) {
        self.rules = rules
        self.schema = schema
        self.names = names
        self.positions = positions
        self.here = here
        let landing = positions.compactMap(\.self)
        fillsByPosition = Set(landing).count == landing.count
    }

    /// The row `incoming` makes of what the store has of it (`storedState`, whether it
    /// `isPresent`), or nil when it changes nothing.
    func row(_ incoming: RowChange, storedState: RowState?, isPresent: Bool, takingEqual: Bool) throws(SyncError)
        -> ImportedRow?
    {
        // What most imports carry: a row new here with a value for each column. Its state is
        // the incoming one as it is, its values go straight to their places.
        if storedState == nil, !isPresent, !incoming.isRemoval, fillsByPosition, rules.isEmpty,
            incoming.values.count == here.count
        {
            var state = RowState(causalLength: incoming.causalLength, base: incoming.versions[0])
            var values = schema.columns.map { _ in Value.null }
            values[0] = incoming.key
            var written = ColumnSet()
            for change in incoming.values {
                // Every value fits a column here (the caller kept the others aside).
                guard let position = positions[change.column] else { continue }
                values[position] = change.value
                written.insert(Int32(position))
                if change.version != 0 { state.overrides[names[change.column]] = incoming.versions[change.version] }
            }
            return ImportedRow(
                key: incoming.key, state: state, values: values, written: written, isPresent: false, hadState: false)
        }
        let outcome = try RowMerge.merge(
            local: storedState, incoming: incoming, names: names, allColumns: here, takingEqual: takingEqual,
            rules: rules)
        guard outcome.changed else { return nil }
        var row = ImportedRow(
            key: incoming.key, state: outcome.state,
            values: isPresent ? schema.columns.map { _ in Value.null } : schema.columns.map(\.insertedValue),
            written: ColumnSet(), isPresent: isPresent, hadState: storedState != nil)
        row.values[0] = incoming.key
        place(outcome.values, in: &row)
        return row
    }

    /// Merges `incoming` into a row the same file named before (a damaged or crafted file
    /// can name a row twice); whether it changed anything.
    func merge(_ incoming: RowChange, into row: inout ImportedRow, takingEqual: Bool) throws(SyncError) -> Bool {
        let outcome = try RowMerge.merge(
            local: row.state, incoming: incoming, names: names, allColumns: here, takingEqual: takingEqual,
            rules: rules)
        guard outcome.changed else { return false }
        row.state = outcome.state
        place(outcome.values, in: &row)
        return true
    }

    private func place(_ values: [String: Value], in row: inout ImportedRow) {
        for (name, value) in values {
            guard let index = schema.columnIndex(named: name) else { continue }
            row.values[index] = value
            row.written.insert(Int32(index))
        }
    }
}

extension ColumnSchema {
    /// What a row inserted without a value for this column holds.
    fileprivate var insertedValue: Value { isNullable ? .null : backfillValue }
}
