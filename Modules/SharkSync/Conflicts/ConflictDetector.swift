import Foundation
@_spi(SharkReplication) import SharkORM

/// Finds the conflicts one incoming row makes with what this replica had (see
/// ``SyncConflict``), by comparing the row's state before and after its merge. It runs only
/// when the app asked for conflicts (``SyncOptions/onConflict``): the merge itself never
/// looks for them.
///
/// Whether two writes were **concurrent** (neither writer had seen the other's) is read from
/// version vectors, since a value's version does not say what its writer had seen:
/// - a local value replaced by an incoming one was overwritten concurrently when the file's
///   vector (what its sender had seen when it exported) does not cover the local write;
/// - an incoming value that lost was concurrent when this replica's vector before the import
///   does not cover it (this replica had never seen it).
///
/// The second test is exact. The first misses one case (docs/sync.md, "Conflicts"): a sender
/// that wrote its value, then received the local one and kept its own (it reported an
/// incoming value that lost), then exported; so every conflict is reported at least once, on
/// one of the replicas it involves. Both can report a pair wrongly only after an import whose
/// vector the receiver could not claim (values kept pending, a file since a vector it had not
/// reached).
struct ConflictDetector {
    let entity: String
    let schema: EntitySchema
    let rules: [String: MergeRule]
    /// What the file's sender had seen when it exported.
    let senderVector: VersionVector
    /// What this replica had seen before the import.
    let localVector: VersionVector
    let report: @Sendable (SyncConflict) -> Void

    /// Reports the conflicts of `incoming` (whose columns are named `names`) with the row this
    /// replica had: its state `before` and stored values `stored` (schema order; nil for a row
    /// removed here or never here), now merged into `after`.
    func detect(
        _ incoming: RowChange, names: [String], before: RowState?, stored: [Value]?, after: RowState
    ) {
        guard let before else { return }
        if incoming.isRemoval {
            // A removal elsewhere that won: local values its remover had not seen are erased.
            guard before.exists, !after.exists, let stored else { return }
            erased(stored, before: before, by: incoming.versions[0], key: incoming.key)
            return
        }
        if incoming.causalLength < before.causalLength {
            // Edits of an incarnation this replica removed (or removed and inserted again)
            // without having seen them.
            for change in incoming.values {
                let version = incoming.versions[change.version]
                guard version.site != before.base.site, !localVector.covers(version) else { continue }
                let name = names[change.column]
                guard let value = Self.valueKeptWhole(change.value, rule: rules[name] ?? .lastWriterWins) else {
                    continue
                }
                report(
                    SyncConflict(
                        kind: .incomingLost, entity: entity, key: incoming.key, column: name,
                        localVersion: SyncVersion(before.base), incomingValue: value,
                        incomingVersion: SyncVersion(version)))
            }
            return
        }
        guard let stored, before.exists else { return }
        if incoming.causalLength > before.causalLength {
            // Removed and inserted again elsewhere: this incarnation's unseen edits are gone.
            erased(stored, before: before, by: incoming.versions[0], key: incoming.key)
            return
        }
        for change in incoming.values {
            let name = names[change.column]
            guard let position = schema.columnIndex(named: name) else { continue }
            let local = before.version(of: name)
            let version = incoming.versions[change.version]
            switch rules[name] ?? .lastWriterWins {
            case .lastWriterWins:
                guard version != local, local != RowMerge.unknown, version.site != local.site,
                    !JoinLaws.same(stored[position], change.value)
                else { continue }
                // The file's value won: had its sender seen ours? It lost: had we seen it?
                let incomingWon = after.version(of: name) == version
                let concurrent = incomingWon ? !senderVector.covers(local) : !localVector.covers(version)
                guard concurrent else { continue }
                report(
                    SyncConflict(
                        kind: incomingWon ? .overwritten : .incomingLost, entity: entity, key: incoming.key,
                        column: name, localValue: stored[position], localVersion: SyncVersion(local),
                        incomingValue: change.value, incomingVersion: SyncVersion(version)))
            case .resolver:
                // Joined only when concurrent: exact, from the values' contributions. The join
                // may be one of the two: the other was still merged away.
                let mine = before.contributions[name] ?? []
                guard let joined = after.registers[name], let incomingValue = try? ResolvedValue.decode(change.value),
                    !ResolvedValue.covers(mine, incomingValue.contributions),
                    !ResolvedValue.covers(incomingValue.contributions, mine),
                    !JoinLaws.same(stored[position], incomingValue.value)
                else { continue }
                report(
                    SyncConflict(
                        kind: .merged, entity: entity, key: incoming.key, column: name, localValue: stored[position],
                        localVersion: SyncVersion(local), incomingValue: incomingValue.value,
                        incomingVersion: SyncVersion(version), mergedValue: joined))
            case .counter, .maximum, .minimum:
                // Every write counts, or the extreme wins: nothing is lost.
                continue
            }
        }
    }

    /// Reports each value of the row that `removal` erased without its writer having seen it
    /// (last-writer-wins and resolver columns: a counter's, maximum's or minimum's
    /// incarnation ends with its row, as the policy says).
    private func erased(_ stored: [Value], before: RowState, by removal: ColumnVersion, key: Value) {
        for (position, column) in schema.columns.enumerated().dropFirst() {
            let rule = rules[column.name] ?? .lastWriterWins
            guard rule == .lastWriterWins || rule.isResolver else { continue }
            let version = before.version(of: column.name)
            guard version != RowMerge.unknown, version.site != removal.site, !senderVector.covers(version) else {
                continue
            }
            report(
                SyncConflict(
                    kind: .erasedByRemoval, entity: entity, key: key, column: column.name,
                    localValue: stored[position], localVersion: SyncVersion(version),
                    incomingVersion: SyncVersion(removal)))
        }
    }
}

extension ConflictDetector {
    /// A file's value of a column whose value is lost whole when it loses: a
    /// last-writer-wins value as it is, a resolver's without its contributions; nil for the
    /// other policies, which lose nothing.
    static func valueKeptWhole(_ value: Value, rule: MergeRule) -> Value? {
        switch rule {
        case .lastWriterWins: return value
        case .resolver: return try? ResolvedValue.decode(value).value
        case .counter, .maximum, .minimum: return nil
        }
    }
}

extension VersionVector {
    /// Whether the write of `version` is counted here.
    func covers(_ version: ColumnVersion) -> Bool { covers(site: version.site, sequence: version.sequence) }
}
