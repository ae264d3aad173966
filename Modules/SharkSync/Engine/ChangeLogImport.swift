import Foundation
@_spi(SharkReplication) import SharkORM

/// One change log applied to a store, inside the import's transaction, in named steps: for
/// each entity, its rows fitted to this store's columns (what does not fit kept for later),
/// what this store has of them looked up, then merged and written; finally the source's
/// vector claimed where the file was complete, and the row states and sites written as
/// bookkeeping.
struct ChangeLogImport {
    let engine: SyncEngine
    let log: ChangeLog
    let tx: WriteTransaction
    /// Whether an incoming value whose version equals the stored one replaces it (a replay
    /// that must rewrite values, as after a migration).
    let takingEqual: Bool
    private var sites: SiteTable
    private let local: SyncSiteRecord
    private var clock: HybridLogicalClock
    private var summary = SyncImportSummary()
    /// Sites with changes in the file this store could not apply: its vector must not claim them.
    private var incomplete = Set<UUID>()
    /// Each entity's row states and batches, written last as bookkeeping.
    private var metadata:
        [(
            table: RowStateTable, states: [(key: Value, state: Data, isNew: Bool)],
            batches: [(state: Data, keys: [Value])]
        )] = []

    init(_ log: ChangeLog, into engine: SyncEngine, in tx: WriteTransaction, takingEqual: Bool) throws {
        self.engine = engine
        self.log = log
        self.tx = tx
        self.takingEqual = takingEqual
        try tx.attributeChanges(to: .imported(log.source.uuidString))
        sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: engine.store)))
        guard let local = sites.local else {
            throw SyncError.misuse(.noLocalSite, "the store's sync metadata has no local site")
        }
        self.local = local
        clock = HybridLogicalClock(last: UInt64(local.clock))
    }

    mutating func run() throws -> SyncImportSummary {
        for entity in log.entities {
            for row in entity.rows { for version in row.versions { clock.receive(version.timestamp) } }
            // An entity this store does not sync (yet), or whose key kind differs here.
            guard let table = engine.tables[entity.name], table.entity.keyKind == entity.keyKind else {
                try keepUnsynced(entity)
                continue
            }
            try apply(entity, to: table)
        }
        claimSourceVector()
        try writeBookkeeping()
        return summary
    }

    /// Keeps the rows of an entity this store does not sync until a migration makes it
    /// match; this store does not claim their sites meanwhile.
    private mutating func keepUnsynced(_ entity: ChangeLogEntity) throws {
        summary.skippedEntities.append(entity.name)
        for row in entity.rows { for version in row.versions { incomplete.insert(version.site) } }
        let names = entity.columns.map(\.name)
        try engine.keepPending(
            entity.rows.map { ($0.key, PendingRow($0, names: names, keeping: { _ in true })) },
            entity: entity.name, in: tx)
    }

    /// Where the file's columns sit in this store's rows.
    private struct ColumnMapping {
        /// This store's name of each of the file's columns.
        let names: [String]
        /// Each of the file's columns' position in this store's rows (nil: not here).
        let positions: [Int?]
        let columns: [ColumnSchema?]
        /// The names of this store's columns, the key left out.
        let here: Set<String>

        init(_ entity: ChangeLogEntity, in schema: EntitySchema) {
            here = Set(schema.columns.dropFirst().map(\.name))
            let names = entity.columns.map { SyncEngine.localName(of: $0, in: schema) ?? $0.name }
            let positions = names.map { name in
                schema.columns.indices.dropFirst().first { schema.columns[$0].name == name }
            }
            self.names = names
            self.positions = positions
            columns = positions.map { $0.map { schema.columns[$0] } }
        }
    }

    private mutating func apply(_ entity: ChangeLogEntity, to table: RowStateTable) throws {
        let schema = table.entity
        let mapping = ColumnMapping(entity, in: schema)
        let applicable = try fitted(entity, schema: schema, mapping: mapping)
        try mergeAndWrite(applicable, of: table, mapping: mapping)
    }

    /// The file's rows as this store can hold them. Values it cannot hold as they are (a
    /// column it does not have, one whose storage class differs here, a NULL where it allows
    /// none: a migration elsewhere changed it) are kept for later, never converted (a
    /// converted value re-exported under its original version would make replicas
    /// disagree); the rest merges now. The file's rows are used as they are until one needs
    /// changing: then a copy with the changed ones.
    private mutating func fitted(_ entity: ChangeLogEntity, schema: EntitySchema, mapping: ColumnMapping) throws
        -> ArraySlice<RowChange>
    {
        var adjusted: [RowChange]?
        var kept: [(key: Value, row: PendingRow)] = []
        var skipped = Set<Int>()
        for (index, row) in entity.rows.enumerated() {
            // Most rows fit as they are: they are used without a copy.
            let fitsAsItIs = row.values.allSatisfy { change in
                // Spelled out: `storageType` is nil for NULL, so a NULL that does not fit
                // (nil) must not compare equal to a NULL as it is.
                guard let fitted = mapping.columns[change.column]?.fitting(change.value) else { return false }
                return fitted.storageType == change.value.storageType
            }
            guard !fitsAsItIs else {
                adjusted?.append(row)
                continue
            }
            if adjusted == nil { adjusted = Array(entity.rows[..<index]) }
            var usable = row
            usable.values.removeAll(keepingCapacity: true)
            var keptColumns = Set<Int>()
            for change in row.values {
                if let column = mapping.columns[change.column], let value = column.fitting(change.value) {
                    usable.values.append(ColumnChange(column: change.column, version: change.version, value: value))
                } else {
                    keptColumns.insert(change.column)
                    incomplete.insert(row.versions[change.version].site)
                }
            }
            if !keptColumns.isEmpty {
                skipped.formUnion(keptColumns)
                kept.append((row.key, PendingRow(row, names: mapping.names, keeping: keptColumns.contains)))
            }
            adjusted?.append(usable)
        }
        summary.skippedColumns += skipped.sorted().map { "\(entity.name).\(mapping.names[$0])" }
        if !kept.isEmpty { try engine.keepPending(kept, entity: schema.name, in: tx) }
        return adjusted.map { $0[...] } ?? entity.rows[...]
    }

    /// Merges every incoming row with what this store has of it and writes the outcome. A
    /// damaged or crafted file may name a row twice (the second merges into the first's
    /// outcome): then rows are matched by key and written once all are merged.
    private mutating func mergeAndWrite(
        _ applicable: ArraySlice<RowChange>, of table: RowStateTable, mapping: ColumnMapping
    ) throws {
        let schema = table.entity
        // What this store has of these rows: their states and whether they are stored. A
        // replica's first import of an entity (a new device) has nothing to look up.
        _ = try tx.writingBookkeeping { try table.foldBatches(in: tx) }
        let store = engine.store
        let isFirst = try !store.hasRows(of: table.schema) && !store.hasRows(of: schema)
        let keys = isFirst ? [] : applicable.map(\.key)
        let stored = isFirst ? [:] : try table.states(keys, in: store)
        let present = isFirst ? [] : Set(try store.storedRows(of: schema, withKeys: keys).map { RowKey($0[0]) })

        let merger = ImportedRows(
            schema: schema, names: mapping.names, positions: mapping.positions, here: mapping.here)
        var writer = ImportedRowWriter(schema: schema, expectedRows: applicable.count)
        var rowOf: [RowKey: Int]? = RowKey.areDistinct(applicable.lazy.map(\.key)) ? nil : [:]
        var held: [ImportedRow] = []
        for row in applicable {
            let rowKey = rowOf == nil && isFirst ? nil : RowKey(row.key)
            if let rowKey, let index = rowOf?[rowKey] {
                if merger.merge(row, into: &held[index], takingEqual: takingEqual) {
                    summary.rowsApplied += 1
                } else {
                    summary.rowsUnchanged += 1
                }
                continue
            }
            let isPresent = rowKey.map { present.contains($0) } ?? false
            var storedState: RowState?
            if let rowKey, let data = stored[rowKey] { storedState = try table.decode(data, sites: sites) }
            guard
                let imported = merger.row(row, storedState: storedState, isPresent: isPresent, takingEqual: takingEqual)
            else {
                summary.rowsUnchanged += 1
                continue
            }
            summary.rowsApplied += 1
            if let rowKey, rowOf != nil {
                rowOf![rowKey] = held.count
                held.append(imported)
            } else {
                try writer.write(imported, sites: &sites, in: tx)
            }
        }
        for row in held { try writer.write(row, sites: &sites, in: tx) }
        if writer.removes { try SyncEngine.noteTombstones(of: table.entity.name, in: tx) }
        try tx.insertRows(writer.inserts, schema: schema)
        let (states, batches) = writer.metadata(smallestBatch: SyncEngine.smallestBatch)
        metadata.append((table, states, batches))
    }

    /// Claims the source's vector only for sites whose every change beyond what this store
    /// had is in the file: the file holds all of a site's changes past `since`, so a store
    /// that had at least `since` of it has them all now.
    private mutating func claimSourceVector() {
        let had = sites.vector
        for (site, sequence) in log.vector.entries where site != engine.site && !incomplete.contains(site) {
            guard had[site] >= log.since[site], sequence > had[site] else { continue }
            _ = sites.number(of: site)
            sites.record(of: site)?.seen = Int64(clamping: sequence)
        }
        local.clock = Int64(clamping: clock.last)
    }

    /// The row states, their batches and the site table, written as bookkeeping (nothing
    /// observes them, and they are never exported as changes).
    private func writeBookkeeping() throws {
        try tx.writingBookkeeping {
            for (table, states, batches) in metadata {
                try table.write(states, in: tx)
                for batch in batches { try table.writeBatch(batch.keys, state: batch.state, in: tx) }
            }
            try tx.commit(sites.records)
        }
    }
}
