import Foundation
@_spi(SharkReplication) import SharkORM

/// One entity's part of an export, read a page at a time so that memory does not grow with
/// the store: the rows whose state the peer lacks, gathered up to a frame's worth, their
/// values fetched by key, then handed to the ``ChangeLogWriter``.
///
/// States come from two places (see `SyncStateBatchRecord`): the state table, walked in key
/// order, then the batches, in the order they were written. A key can be recorded in both (a
/// row removed while no engine watched, then inserted again): two live records of one key
/// merge on any receiver as the fold resolves them, so they are exported as they are; a
/// removal's record is the exception, since the insert that follows it starts a new
/// incarnation which the receiver's merge cannot infer. So while the entity has batches, its
/// tombstones are held back until the batches are read, and resolved with them.
///
/// When the peer has every state stamped up to some arrival (``ArrivalLog``), the state table
/// is walked from there in arrival order instead, through its `arrival` index: only the
/// states written since. A tombstone stamped earlier is then not read with the others, so
/// each batch sent looks up the states of its keys for one.
struct EntityExport {
    let table: RowStateTable
    let peer: VersionVector
    /// The latest arrival whose states the peer has (nil: walk every state).
    let coveredArrival: Int64?
    let sites: SiteTable
    let writer: any ExportedRowSink
    /// Whether removals whose version was forgotten are sent too (a full export past a
    /// tombstone horizon: see ``TombstoneHorizon``).
    let includesForgotten: Bool
    /// The entity's unique indexes, when rows may hold stand-ins whose claims are exported
    /// instead (see ``UniqueClaims``).
    let claims: UniqueClaims?
    /// The entity's schema as the store records it.
    private let schema: EntitySchema
    /// The entity's columns as the file names them.
    private let entity: ChangeLogEntity
    /// The non-key columns' names, and all their positions (shared by rows sent whole).
    private let columns: [String]
    private let everyColumn: [Int]
    /// The positions of the counter columns (see ``MergePolicy/counter(_:)``), whose values
    /// travel as their totals, and of the resolver columns, whose values travel with their
    /// contributions (see ``ResolvedValue``).
    private let counterColumns: [Int]
    private let resolverColumns: [Int]
    /// Rows to send: each row's key, state, and the columns (positions among the non-key
    /// columns) the peer lacks.
    private var pending: [(key: Value, state: RowState, columns: [Int])] = []
    /// Rows of one batch share their base: one look at the vector for them.
    private var lastBase: ColumnVersion?
    private var lastBaseMissing = false

    /// How many rows are gathered before their values are read and written.
    private static let page = ChangeLogFormat.rowsPerFrame

    init(
        table: RowStateTable, schemas: [String: EntitySchema], peer: VersionVector, coveredArrival: Int64?,
        sites: SiteTable, writer: any ExportedRowSink, includesForgotten: Bool = false, claims: UniqueClaims? = nil,
        rules: [String: MergeRule] = [:]
    ) {
        self.table = table
        self.claims = claims
        self.includesForgotten = includesForgotten
        self.peer = peer
        self.coveredArrival = table.stampsArrivals ? coveredArrival : nil
        self.sites = sites
        self.writer = writer
        let schema = schemas[table.entity.name] ?? table.entity
        self.schema = schema
        columns = schema.columns.dropFirst().map(\.name)
        everyColumn = Array(columns.indices)
        let names = columns
        counterColumns = names.indices.filter { rules[names[$0]] == .counter }
        resolverColumns = names.indices.filter { rules[names[$0]]?.isResolver == true }
        entity = Self.describe(table, schemas: schemas, rules: rules)
    }

    /// The entity as a change log describes it: its key kind and non-key columns, with their
    /// storage classes and logical types.
    static func describe(_ table: RowStateTable, schemas: [String: EntitySchema], rules: [String: MergeRule])
        -> ChangeLogEntity
    {
        let schema = schemas[table.entity.name] ?? table.entity
        let described = schema.columns.dropFirst().map { column in
            // A relationship's values are its target's keys: it shows as that key does.
            let target = column.relationship.flatMap { schemas[$0.target]?.key.logicalType }
            return ChangeLogColumn(
                name: column.name, type: column.type, previousNames: column.previousNames ?? [],
                logicalType: column.logicalType ?? target, rule: rules[column.name] ?? .lastWriterWins)
        }
        return ChangeLogEntity(name: schema.name, keyKind: schema.keyKind, columns: described, rows: [])
    }

    mutating func run(in store: Store) throws {
        let hasBatches = try table.hasAnyBatch(in: store)
        var tombstones: [RowKey: (key: Value, state: RowState)] = [:]
        var tombstoneOrder: [RowKey] = []
        try forEachState(in: store) { key, data in
            let state = try table.decode(data, sites: sites)
            if !state.exists, hasBatches {
                let rowKey = RowKey(key)
                tombstones[rowKey] = (key, state)
                tombstoneOrder.append(rowKey)
                return
            }
            try consider(key, state, in: store)
        }
        // The batches, each as its index entry says: one the peer has is skipped without
        // reading its keys (its record is not even read where the index is complete).
        func exportBatch(state data: Data, keys: () throws -> [Value]) throws {
            let state = try table.decode(data, sites: sites)
            guard state.exists, state.overrides.isEmpty else {
                throw SyncError.corrupt(
                    .damagedMetadata, "a state batch of \(table.entity.name) holds a state it never batches")
            }
            if tombstones.isEmpty, peer.covers(site: state.base.site, sequence: state.base.sequence) { return }
            let keys = try keys()
            if coveredArrival != nil {
                // Tombstones the peer has were not read: this batch's own, if any, now.
                for (rowKey, data) in try table.states(keys, in: store) where tombstones[rowKey] == nil {
                    let stored = try table.decode(data, sites: sites)
                    if !stored.exists { tombstones[rowKey] = (.null, stored) }
                }
            }
            for key in keys {
                if !tombstones.isEmpty, let tombstone = tombstones.removeValue(forKey: RowKey(key)) {
                    try consider(key, RowStateTable.resolve(tombstone.state, with: state), in: store)
                } else {
                    try consider(key, state, in: store)
                }
            }
        }
        if try StateBatchIndex.isComplete(for: table.entity.name, in: store) {
            // Batches written at or before the arrival the peer has are covered: not even read.
            let entries = try StateBatchIndex.entries(
                of: table.entity.name, after: coveredArrival, withFilters: false, in: store)
            for entry in entries {
                try exportBatch(state: entry.state) {
                    guard let record = try SyncStateBatchRecord.query(in: store).where(\.id == entry.id).first() else {
                        throw SyncError.corrupt(
                            .damagedMetadata, "the index of \(table.entity.name)'s state batches names a missing batch")
                    }
                    return try record.decodedKeys()
                }
            }
        } else {
            try table.forEachBatch(in: store) { record in
                try exportBatch(state: record.state) { try record.decodedKeys() }
            }
        }
        for rowKey in tombstoneOrder {
            if let tombstone = tombstones[rowKey] { try consider(tombstone.key, tombstone.state, in: store) }
        }
        try flush(in: store)
    }

    /// Hands `body` each state the export reads, a page at a time: every one in key order,
    /// or, when the peer has everything up to an arrival, those stamped after it, in arrival
    /// then key order. Each page is one read through the `arrival` index that continues where
    /// the last stopped: the rest of an arrival (`arrival = a AND key > k`), or the next ones
    /// (`arrival > a`), so that no page sorts more than a page.
    private func forEachState(in store: Store, _ body: (Value, Data) throws -> Void) throws {
        func state(of row: [Value]) throws -> Data {
            guard case .blob(let data) = row[1] else {
                throw SyncError.corrupt(.damagedMetadata, "a row state of the sync metadata is not a blob")
            }
            return data
        }
        guard let coveredArrival else {
            var after: Value?
            while true {
                let rows = try store.storedRows(of: table.schema, after: after, limit: Self.page)
                for row in rows { try body(row[0], try state(of: row)) }
                guard rows.count == Self.page else { return }
                after = rows[rows.count - 1][0]
            }
        }
        let arrival = QueryExpression.column("arrival")
        var lowest = coveredArrival
        var within: (arrival: Value, key: Value)?
        while true {
            let rows: [[Value]]
            if let within {
                rows = try store.storedRows(
                    of: table.schema,
                    where: .conjunction(
                        .comparison(.equal, arrival, .value(within.arrival)),
                        .comparison(.greater, .column(table.schema.key.name), .value(within.key))),
                    orderedBy: [], limit: Self.page)
            } else {
                rows = try store.storedRows(
                    of: table.schema, where: .comparison(.greater, arrival, .value(.integer(lowest))),
                    orderedBy: [Ordering(arrival)], limit: Self.page)
            }
            for row in rows { try body(row[0], try state(of: row)) }
            if rows.count == Self.page, let last = rows.last {
                within = (last[2], last[0])
                continue
            }
            guard let finished = within else { return }
            guard case .integer(let number) = finished.arrival else {
                throw SyncError.corrupt(.damagedMetadata, "a row state of the sync metadata has no arrival")
            }
            lowest = number
            within = nil
        }
    }

    /// Adds the row to the pending ones when the peer lacks any of it.
    private mutating func consider(_ key: Value, _ state: RowState, in store: Store) throws {
        if state.base != lastBase {
            lastBase = state.base
            lastBaseMissing = !peer.covers(site: state.base.site, sequence: state.base.sequence)
        }
        if !state.exists {
            if lastBaseMissing || (includesForgotten && state.base.site == RowMerge.unknown.site) {
                pending.append((key, state, []))
            }
        } else if state.hasPolicyState {
            // A counter's column version is its latest total's, a resolver's value's the
            // greatest of the writes it joins; the peer may lack another site's earlier total
            // or another write joined in, so each is looked at.
            let counters = state.counters
            let registers = state.registers
            let contributions = state.contributions
            var missing = everyColumn.filter { column in
                let name = columns[column]
                if let entries = counters[name],
                    entries.contains(where: {
                        !peer.covers(site: $0.site, sequence: $0.sequence)
                    })
                {
                    return true
                }
                if let entries = contributions[name],
                    entries.contains(where: { !peer.covers(site: $0.site, sequence: $0.sequence) })
                {
                    return true
                }
                let version = state.version(of: name)
                return !peer.covers(site: version.site, sequence: version.sequence)
            }
            // Policy columns travel with their row: a baseline (a value from before the rule,
            // at the version of nothing received) is part of what the row holds.
            if !missing.isEmpty {
                let sent = Set(missing)
                for column in everyColumn where !sent.contains(column) {
                    if counters[columns[column]] != nil || registers[columns[column]] != nil { missing.append(column) }
                }
                missing.sort()
                pending.append((key, state, missing))
            }
        } else if state.overrides.isEmpty {
            if lastBaseMissing { pending.append((key, state, everyColumn)) }
        } else {
            let missing = everyColumn.filter { column in
                let version = state.version(of: columns[column])
                return !peer.covers(site: version.site, sequence: version.sequence)
            }
            if !missing.isEmpty { pending.append((key, state, missing)) }
        }
        if pending.count == Self.page { try flush(in: store) }
    }

    /// Reads the pending rows' values and hands the rows to the writer.
    private mutating func flush(in store: Store) throws {
        guard !pending.isEmpty else { return }
        let live = pending.filter { $0.state.exists }.map(\.key)
        var values: [RowKey: [Value]] = [:]
        values.reserveCapacity(live.count)
        for row in try store.storedRows(of: schema, withKeys: live) { values[RowKey(row[0])] = row }
        if let claims { try showClaims(claims, of: live, in: &values, store: store) }
        var changes: [RowChange] = []
        changes.reserveCapacity(pending.count)
        // Rows of one batch share their base: one array of versions for them all.
        var shared: [ColumnVersion] = []
        for (key, state, missing) in pending {
            guard state.exists else {
                changes.append(
                    RowChange(key: key, causalLength: state.causalLength, versions: [state.base], values: []))
                continue
            }
            guard let values = values[RowKey(key)] else { continue }
            if shared.first != state.base { shared = [state.base] }
            var versions = shared
            var changed: [ColumnChange] = []
            changed.reserveCapacity(missing.count)
            for column in missing {
                var index = 0
                if !state.overrides.isEmpty {
                    let version = state.version(of: columns[column])
                    if version != state.base {
                        index = versions.firstIndex(of: version) ?? versions.count
                        if index == versions.count { versions.append(version) }
                    }
                }
                var value = values[column + 1]
                if !counterColumns.isEmpty, counterColumns.contains(column) {
                    value = CounterEntries.encode(state.counters[columns[column]] ?? [])
                } else if !resolverColumns.isEmpty, resolverColumns.contains(column) {
                    value = ResolvedValue.encode(state.contributions[columns[column]] ?? [], value: value)
                }
                changed.append(ColumnChange(column: column, version: index, value: value))
            }
            changes.append(RowChange(key: key, causalLength: state.causalLength, versions: versions, values: changed))
        }
        pending.removeAll(keepingCapacity: true)
        try writer.take(changes, of: entity)
    }

    /// Puts back, in rows holding a stand-in, the values they claim: the stand-in is never
    /// exported (see ``UniqueClaims``).
    private func showClaims(
        _ claims: UniqueClaims, of keys: [Value], in values: inout [RowKey: [Value]], store: Store
    ) throws {
        let ids = keys.flatMap { key in
            claims.indexes.map { SyncStandInRecord.identifier(entity: claims.entity.name, index: $0.name, key: key) }
        }
        var remaining = ids[...]
        while !remaining.isEmpty {
            let slice = remaining.prefix(500)
            remaining = remaining.dropFirst(slice.count)
            for record in try SyncStandInRecord.query(in: store).where(.isIn(\.id, Array(slice))).fetch()
            where !record.holds {
                let key = RowKey(try record.decodedKey())
                guard let index = claims.indexes.first(where: { $0.name == record.index }), values[key] != nil else {
                    continue
                }
                for (offset, value) in try record.decodedValues().enumerated() where offset < index.positions.count {
                    values[key]![index.positions[offset]] = value
                }
            }
        }
    }
}
