import Foundation
@_spi(SharkReplication) import SharkORM

extension SyncEngine {
    /// A change-log file of what this replica has that a peer whose version vector is `since`
    /// has not seen: the latest value of each changed column (not every value it had), and
    /// removed rows as tombstones. With no vector, everything. Sealed with `key` when given.
    ///
    /// ```swift
    /// let everything = try sync.exportChanges()
    /// let missing = try sync.exportChanges(since: peerVector, key: key)
    /// ```
    public func exportChanges(since peer: VersionVector = VersionVector(), key: ChangeLogKey? = nil) throws -> Data {
        let log = try store.read { snapshot in try changeLog(since: peer, in: snapshot) }
        return try ChangeLogWriter.write(log, key: key)
    }

    /// `exportChanges(since:key:)` with the reads on one of the store's reader threads, so
    /// that async code never blocks a thread of the cooperative pool.
    ///
    /// ```swift
    /// let file = try await sync.exportChanges(since: peerVector)
    /// ```
    public func exportChanges(since peer: VersionVector = VersionVector(), key: ChangeLogKey? = nil) async throws
        -> Data
    {
        let log = try await store.read { snapshot in try self.changeLog(since: peer, in: snapshot) }
        return try ChangeLogWriter.write(log, key: key)
    }

    /// The log of an export, read from one snapshot.
    func changeLog(since peer: VersionVector, in snapshot: ReadTransaction) throws -> ChangeLog {
        let sites = SiteTable(try snapshot.fetch(SyncSiteRecord.query(in: store)))
        // The rows to send, by entity: each row's state and which of its columns (positions
        // among the non-key columns) the peer lacks.
        var pending: [String: [(key: Value, state: RowState, columns: [Int])]] = [:]
        for (name, table) in tables {
            let columns = table.entity.columns.dropFirst().map(\.name)
            let everyColumn = Array(columns.indices)  // shared by the rows written in one go
            var rows: [(key: Value, state: RowState, columns: [Int])] = []
            // Rows of one batch follow each other with one base: one look at the vector for them.
            var lastBase: ColumnVersion?
            var lastBaseMissing = false
            for (key, state) in try table.everyState(in: store, sites: sites) {
                if state.base != lastBase {
                    lastBase = state.base
                    lastBaseMissing = !peer.covers(site: state.base.site, sequence: state.base.sequence)
                }
                let baseMissing = lastBaseMissing
                if !state.exists {
                    if baseMissing { rows.append((key, state, [])) }
                    continue
                }
                if state.overrides.isEmpty {
                    if baseMissing { rows.append((key, state, everyColumn)) }
                    continue
                }
                let missing = everyColumn.filter { column in
                    let version = state.version(of: columns[column])
                    return !peer.covers(site: version.site, sequence: version.sequence)
                }
                if !missing.isEmpty { rows.append((key, state, missing)) }
            }
            if !rows.isEmpty { pending[name] = rows }
        }
        var entities: [ChangeLogEntity] = []
        for name in pending.keys.sorted() {
            let schema = schemas[name]!
            let rows = pending[name]!
            let columns = schema.columns.dropFirst().map { column in
                // A relationship's values are its target's keys: it shows as that key does.
                let target = column.relationship.flatMap { schemas[$0.target]?.key.logicalType }
                return ChangeLogColumn(
                    name: column.name, type: column.type, previousNames: column.previousNames ?? [],
                    logicalType: column.logicalType ?? target)
            }
            let live = rows.filter { $0.state.exists }.map(\.key)
            // The values: a scan of the whole entity when most of it goes, else by key.
            let values =
                live.count > 1_000
                ? try store.storedRows(of: schema, inKeyOrder: false) : try store.storedRows(of: schema, withKeys: live)
            var stored = StoredRows(values)
            var changes: [RowChange] = []
            changes.reserveCapacity(rows.count)
            // Rows of one batch share their base: one array of versions for them all.
            var shared: [ColumnVersion] = []
            for (key, state, missing) in rows {
                guard state.exists else {
                    changes.append(
                        RowChange(key: key, causalLength: state.causalLength, versions: [state.base], values: []))
                    continue
                }
                guard let values = stored.row(withKey: key) else { continue }
                if shared.first != state.base { shared = [state.base] }
                var versions = shared
                var changed: [ColumnChange] = []
                changed.reserveCapacity(missing.count)
                for column in missing {
                    var index = 0
                    if !state.overrides.isEmpty {
                        let version = state.version(of: columns[column].name)
                        if version != state.base {
                            index = versions.firstIndex(of: version) ?? versions.count
                            if index == versions.count { versions.append(version) }
                        }
                    }
                    changed.append(ColumnChange(column: column, version: index, value: values[column + 1]))
                }
                changes.append(
                    RowChange(key: key, causalLength: state.causalLength, versions: versions, values: changed))
            }
            if !changes.isEmpty {
                entities.append(ChangeLogEntity(name: name, keyKind: schema.keyKind, columns: columns, rows: changes))
            }
        }
        return ChangeLog(
            fileID: UUID(), source: site, lineage: lineage, since: peer, vector: sites.vector, entities: entities)
    }
}

/// An entity's stored rows, found by key. The rows of a full export usually come in the order
/// of their states (both follow the order of insertion: the table's scan, and the keys of
/// the state batches), so they are walked along without hashing; the first key out of step
/// indexes them all by key.
private struct StoredRows {
    private let rows: [[Value]]
    private var next = 0
    private var positions: [RowKey: Int]?

    init(_ rows: [[Value]]) { self.rows = rows }

    mutating func row(withKey key: Value) -> [Value]? {
        let rowKey = RowKey(key)
        if positions == nil {
            if next < rows.count, RowKey(rows[next][0]) == rowKey {
                next += 1
                return rows[next - 1]
            }
            var built: [RowKey: Int] = [:]
            built.reserveCapacity(rows.count)
            for (position, row) in rows.enumerated() { built[RowKey(row[0])] = position }
            positions = built
        }
        return positions![rowKey].map { rows[$0] }
    }
}
