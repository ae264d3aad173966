import Foundation
@_spi(SharkReplication) import SharkORM

/// The merge rule of sync, for one row: existence by causal length (the higher wins; odd
/// means the row exists), each column by last-writer-wins on its ``ColumnVersion``. It is a
/// join: merging the same change twice, or two changes in either order, ends in the same
/// state, which is why replicas converge whatever the files' order.
enum RowMerge {
    struct Outcome {
        var state: RowState
        /// The columns whose incoming value won, to write.
        var values: [String: Value]
        /// Whether anything changed (the state or a value).
        var changed: Bool
    }

    /// The version of columns nothing has been received for: every real version beats it.
    static let unknown = ColumnVersion(
        causalLength: 0, timestamp: 0, site: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
        sequence: 0)

    /// Merges `incoming` (whose column names are `names`, by position) into `local`.
    /// `allColumns` are the entity's non-key columns here; values for others are skipped
    /// (the caller knows which). With `takingEqual`, a value whose version equals the local
    /// one is written too: values kept while their column did not exist here, whose version
    /// the row's base claims although the column got only its default.
    ///
    /// Columns with a merge policy (`rules`) merge by it instead (see ``PolicyMerge``).
    static func merge(
        local: RowState?, incoming: RowChange, names: [String], allColumns: Set<String>, takingEqual: Bool = false,
        rules: [String: MergeRule] = [:]
    ) throws(SyncError) -> Outcome {
        if local == nil, !incoming.isRemoval, rules.isEmpty,
            let fresh = fresh(incoming, names: names, allColumns: allColumns)
        {
            return fresh
        }
        var state = local ?? RowState(causalLength: 0, base: unknown)
        let before = state
        let incomingBase = incoming.versions[0]
        var values: [String: Value] = [:]
        if incoming.isRemoval {
            let newer = incoming.causalLength > state.causalLength
            let concurrent =
                incoming.causalLength == state.causalLength && incomingBase.wins(over: state.base)
            if newer || concurrent { state = RowState(causalLength: incoming.causalLength, base: incomingBase) }
        } else {
            for change in incoming.values {
                let name = names[change.column]
                guard allColumns.contains(name) else { continue }
                let version = incoming.versions[change.version]
                if !rules.isEmpty, let rule = rules[name], rule != .lastWriterWins {
                    if let value = try PolicyMerge.merge(
                        change.value, at: version, into: &state, column: name, rule: rule, takingEqual: takingEqual)
                    {
                        values[name] = value
                    }
                    continue
                }
                let current = state.version(of: name)
                if version.wins(over: current) || (takingEqual && version == current) {
                    state.overrides[name] = version
                    values[name] = change.value
                }
            }
            state.causalLength = max(state.causalLength, incoming.causalLength)
            normalize(&state, columns: allColumns)
        }
        return Outcome(state: state, values: values, changed: state != before || !values.isEmpty)
    }

    /// A row new here with a value for each of its columns (what most imports carry): the
    /// incoming state as it is, without comparing anything.
    private static func fresh(_ incoming: RowChange, names: [String], allColumns: Set<String>) -> Outcome? {
        var values: [String: Value] = [:]
        values.reserveCapacity(incoming.values.count)
        var state = RowState(causalLength: incoming.causalLength, base: incoming.versions[0])
        for change in incoming.values {
            let name = names[change.column]
            guard allColumns.contains(name) else { continue }
            values[name] = change.value
            if change.version != 0 { state.overrides[name] = incoming.versions[change.version] }
        }
        // A column without a value would wrongly take the base version: the general path.
        guard values.count == allColumns.count else { return nil }
        return Outcome(state: state, values: values, changed: true)
    }

    /// Folds overrides back into the base where they say the same: the smallest state.
    private static func normalize(_ state: inout RowState, columns: Set<String>) {
        if let first = state.overrides.first?.value, columns.allSatisfy({ state.overrides[$0] == first }) {
            state.base = first
            state.overrides = [:]
            return
        }
        state.overrides = state.overrides.filter { $0.value != state.base && columns.contains($0.key) }
    }
}
