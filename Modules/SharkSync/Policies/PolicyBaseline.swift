@_spi(SharkReplication) import SharkORM

/// Where a column with a merge policy starts when its row's value predates the policy: a row
/// stored before sync was enabled, a column a migration added (its back-fill value), or a
/// column whose rule changed. The value then held is a **baseline**, not a write of this
/// replica: a counter gets an entry of the nil site (`RowMerge.unknown`) at sequence 0 with
/// that total, a maximum or minimum a settled value, a resolver's column a value that
/// includes the nil site's write 0. Replicas that start from the same value
/// agree; ones that start from different values converge on the greater baseline (a counter
/// keeps, for one site and sequence, the greater total). Later writes count from it, so a
/// replica's first increment adds one, not the whole value again.
enum PolicyBaseline {
    /// The nil site's entry holding `value`.
    static func counterEntry(_ value: Int64) -> CounterEntry {
        CounterEntry(site: RowMerge.unknown.site, total: value, sequence: 0)
    }

    /// Seeds `columns` of each state with the value its row holds, read a page of keys at a
    /// time.
    static func seed(
        _ states: inout [(key: Value, state: RowState)], columns: [String], rules: [String: MergeRule],
        of schema: EntitySchema, in store: Store
    ) throws {
        let positions = columns.compactMap { column in schema.columnIndex(named: column).map { (column, $0) } }
        for start in stride(from: 0, to: states.count, by: 500) {
            let range = start..<min(start + 500, states.count)
            var rows: [RowKey: [Value]] = [:]
            for row in try store.storedRows(of: schema, withKeys: states[range].map(\.key)) {
                rows[RowKey(row[0])] = row
            }
            for index in range {
                guard let row = rows[RowKey(states[index].key)] else { continue }
                for (column, position) in positions {
                    seed(
                        &states[index].state, column: column, rule: rules[column] ?? .lastWriterWins,
                        value: row[position])
                }
            }
        }
    }

    /// Seeds one column of `state` with `value`.
    static func seed(_ state: inout RowState, column: String, rule: MergeRule, value: Value) {
        switch rule {
        case .counter:
            guard case .integer(let total) = value else { return }
            state.counters[column] = [counterEntry(total)]
        case .maximum, .minimum:
            state.registers[column] = value
        case .resolver:
            // A baseline includes no write: the nil site at sequence 0 stands for it.
            state.registers[column] = value
            state.contributions[column] = [Contribution(site: RowMerge.unknown.site, sequence: 0)]
        case .lastWriterWins:
            return
        }
    }
}
