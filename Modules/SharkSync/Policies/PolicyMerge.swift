@_spi(SharkReplication) import SharkORM

/// How an incoming value of a column with a merge policy (``MergePolicy``) merges into a row's
/// state. Like last-writer-wins, each rule is a join, so files merge in any order to the same
/// state; like it, a value of an earlier incarnation of the row (a lower causal length) loses
/// to any of a later one, which starts afresh.
enum PolicyMerge {
    /// Merges `value`, written at `version`, into `state`'s column; returns the column's new
    /// value when it changed (nil: the state and the value stay as they are).
    static func merge(
        _ value: Value, at version: ColumnVersion, into state: inout RowState, column: String, rule: MergeRule,
        takingEqual: Bool
    ) throws(SyncError) -> Value? {
        let current = state.version(of: column)
        if version.causalLength < current.causalLength { return nil }
        let laterIncarnation = version.causalLength > current.causalLength
        switch rule {
        case .counter:
            let incoming = try CounterEntries.decode(value)
            let mine = state.counters[column] ?? []
            let merged = laterIncarnation ? incoming : CounterEntries.merge(mine, incoming)
            guard merged != mine || laterIncarnation || (takingEqual && version == current) else {
                // The same totals at another version (a row stored before sync on two
                // replicas, stamped by each one's first write): both keep the greater.
                if version.wins(over: current) { state.overrides[column] = version }
                return nil
            }
            let sum = try CounterEntries.sum(merged, column: column)
            state.counters[column] = merged.isEmpty ? nil : merged
            if version.wins(over: current) { state.overrides[column] = version }
            return .integer(sum)
        case .maximum, .minimum:
            if !laterIncarnation, let mine = state.registers[column] {
                let takes =
                    RegisterOrder.wins(value, at: version, over: mine, at: current, rule: rule)
                    || (takingEqual && version == current)
                guard takes else { return nil }
            }
            state.registers[column] = value
            state.overrides[column] = version
            return value
        case .resolver(let resolver):
            // Only an engine with the app's function merges the column's values.
            guard resolver.join != nil else { throw MergeResolver.unavailable(resolver.name, column: column) }
            let incoming = try ResolvedValue.decode(value)
            let mine = state.contributions[column] ?? []
            var merged = incoming
            var stamp = (value: incoming.value, version: version)
            if !laterIncarnation, let local = state.registers[column] {
                let includesIncoming = ResolvedValue.covers(mine, incoming.contributions)
                let includedByIncoming = ResolvedValue.covers(incoming.contributions, mine)
                if includesIncoming && !includedByIncoming {
                    // The local value was written or joined after the incoming one.
                    return nil
                }
                if includesIncoming && includedByIncoming {
                    // The same writes: equal values, but for two baselines (values from before
                    // the rule) that differ, which join like concurrent values.
                    if JoinLaws.same(local, incoming.value) {
                        guard takingEqual && version == current else {
                            // The same value at another version: both keep the greater.
                            if version.wins(over: current) { state.overrides[column] = version }
                            return nil
                        }
                        merged.value = local
                    } else {
                        stamp = try join(resolver, local, at: current, incoming.value, at: version, column: column)
                        merged.value = stamp.value
                    }
                } else if !includedByIncoming {
                    // Concurrent: neither writer had seen the other's value.
                    stamp = try join(resolver, local, at: current, incoming.value, at: version, column: column)
                    merged.value = stamp.value
                    merged.contributions = ResolvedValue.union(mine, incoming.contributions)
                }
            }
            state.registers[column] = merged.value
            state.contributions[column] = merged.contributions
            state.overrides[column] = stamp.version
            return merged.value
        case .lastWriterWins:
            return nil
        }
    }

    /// The app's join of two concurrent values, with the version it carries.
    private static func join(
        _ resolver: MergeResolver, _ local: Value, at localVersion: ColumnVersion, _ incoming: Value,
        at incomingVersion: ColumnVersion, column: String
    ) throws(SyncError) -> (value: Value, version: ColumnVersion) {
        let value = try resolver.apply(local, at: localVersion, incoming, at: incomingVersion, column: column)
        return (value, MergeResolver.version(joining: localVersion, incomingVersion))
    }
}
