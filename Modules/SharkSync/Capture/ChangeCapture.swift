import Foundation
@_spi(SharkReplication) import SharkORM

/// Records, inside each transaction that changes synced rows, the new state of every row it
/// touched (see ``RowState``): the transaction observer of a ``SyncEngine``. The metadata
/// commits or rolls back with the changes; rolled-back savepoints never reach it.
final class ChangeCapture: TransactionObserver {
    let synced: Set<String>
    /// The non-key columns of each synced entity, to tell an update of every column.
    let columns: [String: Set<String>]
    let site: UUID
    let now: @Sendable () -> UInt64
    let tables: [String: RowStateTable]
    /// The unique indexes sync keeps, by entity (see ``UniqueClaims``).
    let uniqueClaims: [String: UniqueClaims]
    /// The engine's batch filters (see `BatchFilterCache`).
    let filters: BatchFilterCache
    /// The columns with a merge policy, by entity (see ``MergePolicy``).
    let mergeRules: [String: [String: MergeRule]]

    init(
        tables: [String: RowStateTable], uniqueClaims: [String: UniqueClaims],
        mergeRules: [String: [String: MergeRule]], site: UUID, filters: BatchFilterCache,
        now: @escaping @Sendable () -> UInt64
    ) {
        self.mergeRules = mergeRules
        self.filters = filters
        self.uniqueClaims = uniqueClaims
        synced = Set(tables.keys)
        columns = tables.mapValues { Set($0.entity.columns.dropFirst().map(\.name)) }
        self.tables = tables
        self.site = site
        self.now = now
    }

    /// Raw SQL can report no row states: it may not write synced entities or the metadata.
    var protectedEntities: Set<String> {
        synced.union(tables.values.map(\.schema.name)).union([
            SyncEngine.siteEntity, SyncEngine.pendingEntity, SyncEngine.stateColumnsEntity, SyncEngine.stateBatchEntity,
            StateBatchIndex.entity, ArrivalLog.entity, "SharkSyncHorizon", "SharkSyncStandIn",
            "SharkSyncKept",
        ])
    }

    func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
        // Imported changes carry their versions already: the import records them itself.
        // Raw SQL (no key) is refused for synced entities before it runs. Per entity, each
        // row once (in the order first touched) with its changes in order.
        var rows: [String: TouchedRows] = [:]
        rows.reserveCapacity(tables.count)
        // Changes come in runs of one entity (a bulk commit is thousands of one entity's
        // inserts): each run's entity is looked up once, not each change's.
        var run: (entity: String, isSynced: Bool, rows: TouchedRows)?
        for change in changes where change.origin == .local {
            if run?.entity != change.entity {
                if let finished = run, finished.isSynced, !finished.rows.keys.isEmpty {
                    rows[finished.entity] = finished.rows
                }
                let isSynced = synced.contains(change.entity)
                let touched = isSynced ? rows.removeValue(forKey: change.entity) : nil
                run = (change.entity, isSynced, touched ?? TouchedRows())
            }
            guard run!.isSynced, let key = change.key else { continue }
            run!.rows.append(change, key: key)
        }
        if let finished = run, finished.isSynced, !finished.rows.keys.isEmpty { rows[finished.entity] = finished.rows }
        let order = rows.mapValues(\.keys)
        guard !order.isEmpty else { return }
        let store = transaction.store
        var sites = SiteTable(try transaction.fetch(SyncSiteRecord.query(in: store)))
        guard let localSite = sites.local else {
            throw SyncError.misuse(.noLocalSite, "the store's sync metadata has no local site")
        }
        var clock = HybridLogicalClock(last: UInt64(localSite.clock))
        let stamp = TransactionStamp(
            timestamp: clock.tick(now: now()), site: site, sequence: UInt64(localSite.seen) + 1)
        let arrival = try ArrivalLog.begin(in: transaction, sites: sites, filters: filters)
        arrival.note(site: site, sequence: stamp.sequence)

        for (entity, keys) in order.sorted(by: { $0.key < $1.key }) {
            let table = tables[entity]!
            let rules = mergeRules[entity] ?? [:]
            let stored: [RowKey: Data]
            if rows[entity]!.isInsertsOnly {
                // Rows only inserted: new to sync unless a key comes back from a removal (its
                // tombstone, in the state table, continues the causal length). The usual case
                // of a bulk insert is one batch for them all (see `SyncStateBatchRecord`),
                // written without a look at the state table when the entity never had a
                // tombstone. Fewer rows get state rows, each continuing the state its key may
                // have (a row removed while no engine watched keeps its state).
                // Rows with merge policies each keep their own totals: never one shared state.
                let isBulk = keys.count >= RowStateTable.smallestBatch && rules.isEmpty
                let mayReturn = try !isBulk || SyncEngine.mayHaveTombstones(entity, in: transaction)
                stored = mayReturn ? try table.states(keys, in: store) : [:]
                if stored.isEmpty, isBulk {
                    try table.writeBatch(keys, state: sites.encode(.inserted(stamp)), at: arrival, in: transaction)
                    continue
                }
            } else {
                // States change one by one: the batched states of these keys become rows
                // first (the other keys stay batched).
                try table.foldBatches(holding: keys, at: arrival, in: transaction)
                stored = try table.states(keys, in: store)
            }
            let all = columns[entity] ?? []
            var written: [(key: Value, state: Data, isNew: Bool)] = []
            written.reserveCapacity(keys.count)
            var removes = false
            // The state of a row inserted here, new to sync: the same for every such row.
            var inserted: Data?
            let touched = rows[entity]!
            // The values the transaction leaves in columns with merge policies, by key.
            var policyRows: [RowKey: [Value]] = [:]
            if !rules.isEmpty {
                for row in try store.storedRows(of: table.entity, withKeys: keys) { policyRows[RowKey(row[0])] = row }
            }
            for (position, key) in keys.enumerated() {
                let storedState = stored[RowKey(key)]
                if storedState == nil, rules.isEmpty, touched.isOnlyInserted(at: position) {
                    if inserted == nil { inserted = sites.encode(.inserted(stamp)) }
                    written.append((key, inserted!, true))
                    continue
                }
                let before = try storedState.map { try table.decode($0, sites: sites) }
                var state = before
                for change in touched.changes(at: position) {
                    switch change.operation {
                    case .insert:
                        if state == nil { state = .inserted(stamp) } else { state!.recordInsert(stamp) }
                    case .update:
                        if state == nil {
                            // A row stored before sync was enabled: every column is news to peers.
                            state = .inserted(stamp)
                        } else {
                            state!.recordUpdate(
                                change.changedColumns, allColumns: all.isSubset(of: change.changedColumns), stamp)
                        }
                    case .delete:
                        if state == nil { state = .inserted(stamp) }
                        state!.recordRemoval(stamp)
                    case .unknown:
                        continue
                    }
                }
                guard var state else { continue }
                if !state.exists { removes = true }
                if !rules.isEmpty, state.exists, let row = policyRows[RowKey(key)] {
                    let changes = touched.changes(at: position)
                    try PolicyCapture.record(
                        row, of: table.entity, rules: rules, changes: changes, stamp: stamp, before: before,
                        // A row stored before sync was enabled: what it holds is a baseline.
                        predatesSync: storedState == nil && changes.first?.operation != .insert, into: &state)
                }
                written.append((key, sites.encode(state), storedState == nil))
            }
            if removes { try SyncEngine.noteTombstones(of: entity, in: transaction) }
            try table.write(written, at: arrival, in: transaction)
        }
        for (entity, keys) in order.sorted(by: { $0.key < $1.key }) {
            guard let claims = uniqueClaims[entity] else { continue }
            try settleClaims(
                claims, keys: keys, touched: rows[entity]!, arrival: arrival, sites: sites, in: transaction)
        }
        try ArrivalLog.record(arrival, sites: &sites, in: transaction)
        localSite.seen = Int64(stamp.sequence)
        localSite.clock = Int64(clamping: clock.last)
        try transaction.commit(sites.records)
    }

    /// Keeps `claims`' unique values after the app's writes (see ``UniqueClaims``): a row that
    /// let a value go gives it to the row that waited for it; a waiting row the app wrote to
    /// takes the value it now claims. Only while some value is contested: otherwise the
    /// store's own unique check, which the app's writes passed, is all there is to it.
    private func settleClaims(
        _ claims: UniqueClaims, keys: [Value], touched: TouchedRows, arrival: Arrival, sites: SiteTable,
        in transaction: WriteTransaction
    ) throws {
        let store = transaction.store
        guard try ClaimResolver.hasRecords(of: claims.entity.name, in: store) else { return }
        let resolver = try ClaimResolver(claims, table: tables[claims.entity.name]!, arrival: arrival, in: transaction)
        var rows: [RowKey: [Value]] = [:]
        for row in try store.storedRows(of: claims.entity, withKeys: keys) { rows[RowKey(row[0])] = row }
        try transaction.writingConsequences {
            for (position, key) in keys.enumerated() {
                var written: ColumnSet? = ColumnSet()
                for change in touched.changes(at: position) {
                    switch change.operation {
                    case .insert: written = nil
                    case .update:
                        for name in change.changedColumns {
                            if let column = claims.entity.columnIndex(named: name) { written?.insert(Int32(column)) }
                        }
                    case .delete, .unknown: break
                    }
                }
                guard let row = rows[RowKey(key)] else {
                    _ = try resolver.settle(key: key, exists: false, written: written, after: [], stored: nil)
                    continue
                }
                let overrides = try resolver.settle(key: key, exists: true, written: written, after: row, stored: row)
                guard !overrides.isEmpty else { continue }
                var values = row
                var columns = ColumnSet()
                for (column, value) in overrides {
                    values[column] = value
                    columns.insert(Int32(column))
                }
                try transaction.updateRow(withKey: key, row: values, columns: columns, schema: claims.entity)
            }
            try resolver.resolveContested(sites: sites)
        }
    }
}

/// The rows of one entity a transaction touched: each once, in the order first touched, with
/// its changes in order.
private struct TouchedRows {
    /// Built on the first change that is not an insert: until then every key is new (a key
    /// cannot be inserted twice without a removal between), so bulk inserts hash nothing.
    private var positions: [RowKey: Int]?
    private(set) var keys: [Value] = []
    /// Each row's first change, by position: no array per row for the usual single change.
    private var firstChanges: [Change] = []
    /// The changes after the first, by position, of the rows touched more than once.
    private var laterChanges: [Int: [Change]] = [:]

    /// Whether every change was an insert (and so every key is touched once).
    var isInsertsOnly: Bool { positions == nil }

    /// Whether the row at `position` was inserted and nothing more.
    func isOnlyInserted(at position: Int) -> Bool {
        firstChanges[position].operation == .insert && (laterChanges.isEmpty || laterChanges[position] == nil)
    }

    /// The changes of the row at `position`, in order.
    func changes(at position: Int) -> [Change] {
        [firstChanges[position]] + (laterChanges[position] ?? [])
    }

    mutating func append(_ change: Change, key: Value) {
        if positions == nil {
            guard change.operation != .insert else {
                keys.append(key)
                firstChanges.append(change)
                return
            }
            var built: [RowKey: Int] = [:]
            built.reserveCapacity(keys.count + 1)
            for (position, key) in keys.enumerated() { built[RowKey(key)] = position }
            positions = built
        }
        if let position = positions![RowKey(key)] {
            laterChanges[position, default: []].append(change)
        } else {
            positions![RowKey(key)] = keys.count
            keys.append(key)
            firstChanges.append(change)
        }
    }
}
