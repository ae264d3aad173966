import Foundation
@_spi(SharkReplication) import SharkORM

/// The columns the row states of one synced entity were written with. A state's base
/// version covers every column the entity had then; a column a migration adds later was not
/// covered (its value here is only the back-fill), so when the engine opens and finds new
/// columns, it gives them, in every live state, the version of nothing received: any value a
/// replica wrote for them wins, and values kept for them while they did not exist apply.
@Model(entity: "SharkSyncColumns")
final class SyncStateColumnsRecord {
    /// The entity's name.
    var id: String
    /// Its non-key column names, separated by U+001F.
    var columns: String = ""
    /// Whether the entity may have tombstones (the states of removed rows): set when one is
    /// written, never cleared, and true for records kept before this was (nothing was known
    /// then). While it is false, capture writes the states of inserted rows without first
    /// looking for a tombstone of their keys.
    var mayHaveTombstones: Bool = true
    /// The columns that merge by a policy (``MergePolicy``), as `column=rule` separated by
    /// U+001F, in column order: what an engine opened without models merges by, and what
    /// tells that a model's policy changed (a column whose rule changed starts afresh, as a
    /// new column does).
    var rules: String = ""

    init(id: String) { self.id = id }

    /// `rules` as a record keeps them.
    static func encode(_ rules: [String: MergeRule]) -> String {
        rules.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.rawValue)" }.joined(separator: "\u{1F}")
    }

    /// The rules a record keeps; a rule this library does not know reads as last-writer-wins
    /// (a later release's: such a store is opened by that release).
    static func decode(_ text: String) -> [String: MergeRule] {
        var rules: [String: MergeRule] = [:]
        for pair in text.split(separator: "\u{1F}") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let rule = MergeRule(rawValue: parts[1]) else { continue }
            rules[parts[0]] = rule
        }
        return rules
    }
}

extension SyncEngine {
    static let stateColumnsEntity = "SharkSyncColumns"

    /// The merge rules the store recorded, by entity (none on a store that recorded none).
    static func recordedRules(in store: Store) throws -> [String: [String: MergeRule]] {
        guard try store.recordedSchemas().contains(where: { $0.name == stateColumnsEntity }) else { return [:] }
        var rules: [String: [String: MergeRule]] = [:]
        for row in try store.fetchRows(of: stateColumnsEntity) {
            guard case .text(let id)? = row["id"], case .text(let text)? = row["rules"] else { continue }
            let decoded = SyncStateColumnsRecord.decode(text)
            if !decoded.isEmpty { rules[id] = decoded }
        }
        return rules
    }

    /// Brings the row states of every synced entity in step with its columns (see
    /// ``SyncStateColumnsRecord``), in one transaction.
    func catchUpStateColumns() throws {
        try store.write { tx in
            var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
            var records: [SyncStateColumnsRecord] = []
            var arrival: Arrival?
            for (name, table) in tables.sorted(by: { $0.key < $1.key }) {
                let current = table.entity.columns.dropFirst().map(\.name)
                let joined = current.joined(separator: "\u{1F}")
                let rules = mergeRules[name] ?? [:]
                let encodedRules = SyncStateColumnsRecord.encode(rules)
                let record = try tx.find(SyncStateColumnsRecord.self, id: name)
                if record == nil {
                    // A new synced entity: no state yet, so no tombstone (unless states were
                    // kept before this record was).
                    let written = SyncStateColumnsRecord(id: name)
                    written.mayHaveTombstones = try store.hasRows(of: table.schema)
                    written.columns = joined
                    written.rules = encodedRules
                    records.append(written)
                }
                defer {
                    if let record, record.columns != joined || record.rules != encodedRules {
                        record.columns = joined
                        record.rules = encodedRules
                        records.append(record)
                    }
                }
                // A new entity's states (none yet) or unchanged columns: nothing to do.
                guard let record, record.columns != joined || record.rules != encodedRules else { continue }
                let before = Set(record.columns.split(separator: "\u{1F}").map(String.init))
                // A column whose merge rule changed is a new column: its values are never
                // merged by the rule they were not written under.
                let recordedRules = SyncStateColumnsRecord.decode(record.rules)
                let added = current.filter { !before.contains($0) && !table.isRenamed($0, from: before) }
                let ruleChanged = current.filter { before.contains($0) && recordedRules[$0] != rules[$0] }
                guard !added.isEmpty || !ruleChanged.isEmpty else { continue }
                if arrival == nil { arrival = try ArrivalLog.begin(in: tx, sites: sites, filters: filters) }
                _ = try tx.writingBookkeeping { try table.foldBatches(at: arrival!, in: tx) }
                var states: [(key: Value, state: RowState)] = []
                for (key, data) in try table.allStates(in: store) {
                    var state = try table.decode(data, sites: sites)
                    guard state.exists else { continue }
                    for column in added where state.overrides[column] == nil {
                        state.overrides[column] = RowMerge.unknown
                    }
                    for column in ruleChanged {
                        state.overrides[column] = RowMerge.unknown
                        state.counters[column] = nil
                        state.registers[column] = nil
                        state.contributions[column] = nil
                    }
                    states.append((key, state))
                }
                // Policy columns start from the value each row holds now, as a baseline
                // every replica shares (see ``PolicyBaseline``).
                let seeded = (added + ruleChanged).filter { (rules[$0] ?? .lastWriterWins) != .lastWriterWins }
                if !seeded.isEmpty {
                    try PolicyBaseline.seed(&states, columns: seeded, rules: rules, of: table.entity, in: store)
                }
                let updated = states.map { (key: $0.key, state: sites.encode($0.state), isNew: false) }
                try tx.writingBookkeeping { try table.write(updated, at: arrival!, in: tx) }
            }
            if let arrival { try ArrivalLog.record(arrival, sites: &sites, in: tx) }
            try tx.writingBookkeeping { try tx.commit(records) }
        }
    }
}

extension SyncEngine {
    /// Whether every synced entity's row states were last brought in step with the columns it
    /// has now: what a read-only store needs, since it cannot catch up itself and its states
    /// would otherwise claim, for a column a migration added, the version of the row's last
    /// write.
    func stateColumnsAreCurrent() throws -> Bool {
        // Plain rows by the recorded schema: reading through the model would first bring the
        // table in step with it (a column added since), which a read-only store cannot.
        var records: [String: String] = [:]
        for row in try store.fetchRows(of: Self.stateColumnsEntity) {
            guard case .text(let id)? = row["id"], case .text(let columns)? = row["columns"] else { continue }
            records[id] = columns
        }
        // A rule changed since (an engine opened with models declaring another): the states
        // of its column need starting afresh, which a read-only store cannot do.
        let recordedRules = try Self.recordedRules(in: store)
        for (name, _) in tables where (recordedRules[name] ?? [:]) != (mergeRules[name] ?? [:]) { return false }
        for (name, table) in tables {
            let current = table.entity.columns.dropFirst().map(\.name)
            guard let recorded = records[name], recorded != current.joined(separator: "\u{1F}") else { continue }
            let before = Set(recorded.split(separator: "\u{1F}").map(String.init))
            if current.contains(where: { !before.contains($0) && !table.isRenamed($0, from: before) }) {
                return false
            }
        }
        return true
    }
}

extension RowStateTable {
    /// Whether `column` is one of `before` under a new name (`@Renamed(from:)`).
    func isRenamed(_ column: String, from before: Set<String>) -> Bool {
        let previous = entity.columns.first { $0.name == column }?.previousNames ?? []
        return previous.contains(where: before.contains)
    }
}

extension SyncEngine {
    /// Records that `entity` now has a tombstone (see ``SyncStateColumnsRecord/mayHaveTombstones``).
    static func noteTombstones(of entity: String, in tx: WriteTransaction) throws {
        guard let record = try tx.find(SyncStateColumnsRecord.self, id: entity), !record.mayHaveTombstones else {
            return
        }
        record.mayHaveTombstones = true
        try tx.writingBookkeeping { try tx.commit(record) }
    }

    /// Whether `entity` may have tombstones; true when nothing says it has none.
    static func mayHaveTombstones(_ entity: String, in tx: WriteTransaction) throws -> Bool {
        try tx.find(SyncStateColumnsRecord.self, id: entity)?.mayHaveTombstones ?? true
    }
}
