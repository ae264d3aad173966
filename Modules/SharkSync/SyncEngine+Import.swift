import Foundation
import SharkORM

/// What an import did.
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
    /// with origin ``ChangeOrigin/imported(_:)`` (events report them), no hook can veto them,
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
        let log = try ChangeLogReader.read(data, key: key, limits: limits)
        guard log.lineage == lineage else { throw SyncError.foreignLineage(expected: lineage, found: log.lineage) }
        return try store.write { tx in try apply(log, in: tx) }
    }

    private func apply(_ log: ChangeLog, in tx: WriteTransaction) throws -> SyncImportSummary {
        try tx.attributeChanges(to: .imported(log.source.uuidString))
        var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
        guard let local = sites.local else { throw SyncError.misuse("the store's sync metadata has no local site") }
        var clock = HybridLogicalClock(last: UInt64(local.clock))
        var summary = SyncImportSummary()
        // Sites with changes in the file this store could not apply: its vector must not claim them.
        var incomplete = Set<UUID>()
        var metadata: [SyncRowRecord] = []
        for entity in log.entities {
            for row in entity.rows { for version in row.versions { clock.receive(version.timestamp) } }
            guard let schema = schemas[entity.name] else {
                summary.skippedEntities.append(entity.name)
                for row in entity.rows { for version in row.versions { incomplete.insert(version.site) } }
                continue
            }
            let names = entity.columns.map(\.name)
            let here = Set(schema.columns.dropFirst().map(\.name))
            let unknown = Set(names.indices.filter { !here.contains(names[$0]) })
            summary.skippedColumns += unknown.sorted().map { "\(entity.name).\(names[$0])" }
            for row in entity.rows {
                for change in row.values where unknown.contains(change.column) {
                    incomplete.insert(row.versions[change.version].site)
                }
                let id = SyncRowRecord.identifier(entity: schema.name, key: row.key)
                let record = try tx.find(SyncRowRecord.self, id: id)
                let localState = try record.map { try sites.decode($0.state) }
                let outcome = RowMerge.merge(local: localState, incoming: row, names: names, allColumns: here)
                guard outcome.changed else {
                    summary.rowsUnchanged += 1
                    continue
                }
                try write(outcome, key: row.key, schema: schema, in: tx)
                let written =
                    record
                    ?? SyncRowRecord(
                        id: id, entity: schema.name, key: Data(SyncRowRecord.encoded(row.key)), state: Data())
                written.state = sites.encode(outcome.state)
                metadata.append(written)
                summary.rowsApplied += 1
            }
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
            try tx.commit(metadata)
            try tx.commit(sites.records)
        }
        return summary
    }

    /// Brings the stored row to the merged state: inserted, updated or removed.
    private func write(_ outcome: RowMerge.Outcome, key: Value, schema: EntitySchema, in tx: WriteTransaction) throws {
        let keyColumn = schema.columns[0].name
        let present =
            !(try store.fetchRows(
                of: schema.name, where: .comparison(.equal, .column(keyColumn), .value(key)), limit: 1
            ).isEmpty)
        var values = outcome.values
        for column in schema.columns.dropFirst() where values[column.name]?.isNull == true && !column.isNullable {
            values[column.name] = column.backfillValue  // made non-optional here by a migration
        }
        if outcome.state.exists {
            if present {
                if !values.isEmpty { try tx.updateRow(withKey: key, in: schema.name, setting: values) }
            } else {
                values[keyColumn] = key
                try tx.insertRow(values, into: schema.name)
            }
        } else if present {
            try tx.deleteRow(withKey: key, from: schema.name)
        }
    }
}
