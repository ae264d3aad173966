@_spi(SharkReplication) import SharkORM

/// What a local transaction records for columns with a merge policy (``MergePolicy``), from
/// the values it leaves in them and the row's state from before it: for a counter, the
/// difference it made, added to this site's total; for a maximum or minimum, the new value,
/// unless it would lower (raise) the one sync settled, which throws; for a resolver's column,
/// the new value, which includes every write the replaced one did and this one.
///
/// The value from before the transaction is the state's own (the sum of a counter's totals,
/// a register's value), which every write of a synced row keeps in step: a local write
/// through this capture, an import through its merge. Raw SQL may not write synced entities.
enum PolicyCapture {
    ///
    /// `predatesSync`: the row was stored before sync was enabled and this transaction is the
    /// first to touch it since; its policy columns start from what it holds (see
    /// ``PolicyBaseline``).
    static func record(
        _ row: [Value], of schema: EntitySchema, rules: [String: MergeRule], changes: [Change],
        stamp: TransactionStamp, before: RowState?, predatesSync: Bool, into state: inout RowState
    ) throws(SyncError) {
        if predatesSync {
            for (column, rule) in rules {
                guard let position = schema.columnIndex(named: column) else { continue }
                PolicyBaseline.seed(&state, column: column, rule: rule, value: row[position])
                // A resolver's value includes the write that stamps it (its version is this
                // transaction's), so that two replicas holding the row from before sync join
                // their values as concurrent writes, and each export sends its own.
                if rule.isResolver {
                    state.contributions[column] = [Contribution(site: stamp.site, sequence: stamp.sequence)]
                }
            }
            return
        }
        let insertsWhole = changes.contains { $0.operation == .insert }
        for (column, rule) in rules.sorted(by: { $0.key < $1.key }) {
            guard insertsWhole || changes.contains(where: { $0.changedColumns.contains(column) }),
                let position = schema.columnIndex(named: column)
            else { continue }
            let value = row[position]
            switch rule {
            case .counter:
                guard case .integer(let new) = value else { continue }
                var entries = state.counters[column] ?? []
                let before = try CounterEntries.sum(entries, column: column)
                let (delta, overflow) = new.subtractingReportingOverflow(before)
                let mine = entries.firstIndex { $0.site == stamp.site }
                let (total, totalOverflow) = (mine.map { entries[$0].total } ?? 0).addingReportingOverflow(delta)
                guard !overflow, !totalOverflow else {
                    throw .mergePolicy(
                        .counterOverflow, "the change of the counter \(column) to \(new) does not fit 64 bits")
                }
                let entry = CounterEntry(site: stamp.site, total: total, sequence: stamp.sequence)
                if let mine { entries[mine] = entry } else { entries.append(entry) }
                state.counters[column] = entries.sorted { SiteOrder.precedes($0.site, $1.site) }
            case .maximum, .minimum:
                if let settled = state.registers[column] {
                    if rule == .maximum, RegisterOrder.isBelow(value, settled) {
                        throw .mergePolicy(
                            .lowersMaximum,
                            "\(schema.name).\(column) is a maximum: \(value) would lower it from \(settled)")
                    }
                    if rule == .minimum, RegisterOrder.isBelow(settled, value) {
                        throw .mergePolicy(
                            .raisesMinimum,
                            "\(schema.name).\(column) is a minimum: \(value) would raise it from \(settled)")
                    }
                }
                state.registers[column] = value
            case .resolver(let resolver):
                if let settled = state.registers[column] {
                    // A write the resolver would not keep against the value it replaces could
                    // be undone by a replica that joined the old value with a concurrent one.
                    guard let join = resolver.join else {
                        throw MergeResolver.unavailable(resolver.name, column: "\(schema.name).\(column)")
                    }
                    let kept = try join(
                        settled, before?.version(of: column) ?? RowMerge.unknown, value,
                        stamp.version(causalLength: state.causalLength))
                    guard JoinLaws.same(kept, value) else {
                        throw .mergePolicy(
                            .writeNotKept,
                            "\(schema.name).\(column) merges by the resolver \"\(resolver.name)\", which keeps \(kept), not the value written (\(value)), against the value it replaces (\(settled))"
                        )
                    }
                }
                state.registers[column] = value
                state.contributions[column] = ResolvedValue.union(
                    state.contributions[column] ?? [], [Contribution(site: stamp.site, sequence: stamp.sequence)])
            case .lastWriterWins:
                continue
            }
        }
    }
}
