import Foundation
import SharkORM

/// What an import did.
///
/// ```swift
/// let summary = try sync.importChanges(from: file)
/// print(summary.rowsApplied, summary.rowsUnchanged, summary.skippedColumns)
/// ```
public struct SyncImportSummary: Sendable, Hashable {
    /// Rows whose state changed here: inserted, updated, removed, or only their versions.
    public var rowsApplied = 0
    /// Rows the store had already (a replayed file applies none).
    public var rowsUnchanged = 0
    /// Entities of the file this store does not sync (yet): their rows wait until a
    /// migration adds them, and this store's version vector does not claim them meanwhile.
    public var skippedEntities: [String] = []
    /// Columns of the file this store's entities do not have (yet), as `Entity.column`.
    public var skippedColumns: [String] = []

    public init() {}
}

extension SyncEngine {
    /// Applies a change-log file from another replica, all of it or (on any error) nothing.
    /// Replaying a file changes nothing; files apply in any order. The changes are written
    /// with origin `ChangeOrigin.imported` (events report them), no hook can veto them,
    /// and delete rules do not run (the other side applied them already).
    ///
    /// The file is read and checked completely first: a damaged, truncated, foreign or
    /// future-version file, or a wrong key, throws a ``SyncError`` and leaves the store as it was.
    ///
    /// ```swift
    /// let summary = try sync.importChanges(from: file)
    /// print(summary.rowsApplied)
    /// ```
    @discardableResult
    public func importChanges(
        from data: Data, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits()
    ) throws -> SyncImportSummary {
        guard !store.isInTransaction else {
            throw SyncError.misuse("import a change log outside of any transaction of the store: it is one itself")
        }
        let log = try checkedLog(data, key: key, limits: limits)
        return try store.write { tx in try apply(log, in: tx) }
    }

    /// `importChanges(from:key:limits:)` with the writes on the store's writer thread, so
    /// that async code never blocks a thread of the cooperative pool. The file is checked
    /// before the writer is taken.
    ///
    /// ```swift
    /// let summary = try await sync.importChanges(from: file)
    /// ```
    @discardableResult
    public func importChanges(
        from data: Data, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits()
    ) async throws -> SyncImportSummary {
        let log = try checkedLog(data, key: key, limits: limits)
        return try await store.write { tx in try self.apply(log, in: tx) }
    }

    /// The file read and checked whole, and of this store's lineage.
    private func checkedLog(_ data: Data, key: ChangeLogKey?, limits: ChangeLogLimits) throws -> ChangeLog {
        let log = try ChangeLogReader.read(data, key: key, limits: limits)
        guard log.lineage == lineage else { throw SyncError.foreignLineage(expected: lineage, found: log.lineage) }
        return log
    }

    func apply(_ log: ChangeLog, in tx: WriteTransaction, takingEqual: Bool = false) throws -> SyncImportSummary {
        try tx.attributeChanges(to: .imported(log.source.uuidString))
        var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
        guard let local = sites.local else { throw SyncError.misuse("the store's sync metadata has no local site") }
        var clock = HybridLogicalClock(last: UInt64(local.clock))
        var summary = SyncImportSummary()
        // Sites with changes in the file this store could not apply: its vector must not claim them.
        var incomplete = Set<UUID>()
        var metadata:
            [(
                table: RowStateTable, states: [(key: Value, state: Data, isNew: Bool)],
                batches: [(state: Data, keys: [Value])]
            )] =
                []
        for entity in log.entities {
            for row in entity.rows { for version in row.versions { clock.receive(version.timestamp) } }
            // An entity this store does not sync (yet), or whose key kind differs here: kept
            // until a migration makes it match; this store does not claim it meanwhile.
            guard let table = tables[entity.name], table.entity.keyKind == entity.keyKind else {
                summary.skippedEntities.append(entity.name)
                for row in entity.rows { for version in row.versions { incomplete.insert(version.site) } }
                let names = entity.columns.map(\.name)
                try keepPending(
                    entity.rows.map { ($0.key, PendingRow($0, names: names, keeping: { _ in true })) },
                    entity: entity.name, in: tx)
                continue
            }
            let schema = table.entity
            let here = Set(schema.columns.dropFirst().map(\.name))
            let names = entity.columns.map { Self.localName(of: $0, in: schema) ?? $0.name }
            // Where each of the file's columns sits in this store's rows (nil: not here).
            let positions = names.map { name in
                schema.columns.indices.dropFirst().first { schema.columns[$0].name == name }
            }
            let columns = positions.map { $0.map { schema.columns[$0] } }

            // Values this store cannot hold as they are (a column it does not have, one whose
            // storage class differs here, a NULL where it allows none: a migration elsewhere
            // changed it) are kept for later, never converted (a converted value re-exported
            // under its original version would make replicas disagree); the rest merges now.
            // The file's rows, until one needs changing: then a copy with the changed ones.
            var adjusted: [RowChange]?
            var kept: [(key: Value, row: PendingRow)] = []
            var skipped = Set<Int>()
            for (index, row) in entity.rows.enumerated() {
                // Most rows fit as they are: they are used without a copy.
                let fitsAsItIs = row.values.allSatisfy { change in
                    // Spelled out: `storageType` is nil for NULL, so a NULL that does not fit
                    // (nil) must not compare equal to a NULL as it is.
                    guard let fitted = columns[change.column]?.fitting(change.value) else { return false }
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
                    if let column = columns[change.column], let value = column.fitting(change.value) {
                        usable.values.append(ColumnChange(column: change.column, version: change.version, value: value))
                    } else {
                        keptColumns.insert(change.column)
                        incomplete.insert(row.versions[change.version].site)
                    }
                }
                if !keptColumns.isEmpty {
                    skipped.formUnion(keptColumns)
                    kept.append((row.key, PendingRow(row, names: names, keeping: keptColumns.contains)))
                }
                adjusted?.append(usable)
            }
            summary.skippedColumns += skipped.sorted().map { "\(entity.name).\(names[$0])" }
            if !kept.isEmpty { try keepPending(kept, entity: schema.name, in: tx) }

            // What this store has of these rows: their states and whether they are stored.
            // A replica's first import of an entity (a new device) has nothing to look up.
            _ = try tx.writingBookkeeping { try table.foldBatches(in: tx) }
            let isFirst = try !store.hasRows(of: table.schema) && !store.hasRows(of: schema)
            let applicable = adjusted ?? entity.rows
            let keys = isFirst ? [] : applicable.map(\.key)
            let stored = isFirst ? [:] : try table.states(keys, in: store)
            let present =
                isFirst ? [] : Set(try store.storedRows(of: schema, withKeys: keys).map { RowKey($0[0]) })

            // Merge every incoming row and write it. A damaged or crafted file may name a row
            // twice (the second merges into the first's outcome): then rows are matched by
            // key and written once all are merged.
            let merger = ImportedRows(schema: schema, names: names, positions: positions, here: here)
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
                    let imported = merger.row(
                        row, storedState: storedState, isPresent: isPresent, takingEqual: takingEqual)
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
            if writer.removes { try Self.noteTombstones(of: table.entity.name, in: tx) }
            try tx.insertRows(writer.inserts, schema: schema)
            let (states, batches) = writer.metadata(smallestBatch: Self.smallestBatch)
            metadata.append((table, states, batches))
        }
        // Claim the source's vector only for sites whose every change beyond what this store
        // had is in the file: the file holds all of a site's changes past `since`, so a store
        // that had at least `since` of it has them all now.
        let had = sites.vector
        for (site, sequence) in log.vector.entries where site != self.site && !incomplete.contains(site) {
            guard had[site] >= log.since[site], sequence > had[site] else { continue }
            _ = sites.number(of: site)
            sites.record(of: site)?.seen = Int64(clamping: sequence)
        }
        local.clock = Int64(clamping: clock.last)
        try tx.writingBookkeeping {
            for (table, states, batches) in metadata {
                try table.write(states, in: tx)
                for batch in batches { try table.writeBatch(batch.keys, state: batch.state, in: tx) }
            }
            try tx.commit(sites.records)
        }
        return summary
    }

    /// Fewer new rows than this sharing a state get a state row each rather than a batch.
    static let smallestBatch = 16

    /// The name a column of a file has here: the same name, or the local column renamed from
    /// it (this store migrated further), or the name it had before (the file's store did).
    static func localName(of column: ChangeLogColumn, in schema: EntitySchema) -> String? {
        let columns = schema.columns.dropFirst()
        if columns.contains(where: { $0.name == column.name }) { return column.name }
        if let renamed = columns.first(where: { $0.previousNames?.contains(column.name) == true }) {
            return renamed.name
        }
        return columns.first { column.previousNames.contains($0.name) }?.name
    }
}
