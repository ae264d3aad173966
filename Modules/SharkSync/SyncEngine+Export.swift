import Foundation
import SharkORM

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

    /// The log of an export, read from one snapshot.
    func changeLog(since peer: VersionVector, in snapshot: ReadTransaction) throws -> ChangeLog {
        let sites = SiteTable(try snapshot.fetch(SyncSiteRecord.query(in: store)))
        // The rows to send, by entity: each row's state and which of its columns the peer lacks.
        var pending: [String: [(key: Value, state: RowState, columns: [String])]] = [:]
        for (name, table) in tables {
            let columns = table.entity.columns.dropFirst().map(\.name)
            for (key, data) in try table.allStates(in: store) {
                let state = try table.decode(data, sites: sites)
                if !state.exists {
                    if !peer.covers(site: state.base.site, sequence: state.base.sequence) {
                        pending[name, default: []].append((key, state, []))
                    }
                    continue
                }
                let missing = columns.filter { column in
                    let version = state.version(of: column)
                    return !peer.covers(site: version.site, sequence: version.sequence)
                }
                if !missing.isEmpty { pending[name, default: []].append((key, state, missing)) }
            }
        }
        var entities: [ChangeLogEntity] = []
        for name in pending.keys.sorted() {
            let schema = schemas[name]!
            let rows = pending[name]!
            let columns = schema.columns.dropFirst().map {
                ChangeLogColumn(name: $0.name, type: $0.type, previousNames: $0.previousNames ?? [])
            }
            let position = Dictionary(uniqueKeysWithValues: schema.columns.enumerated().map { ($1.name, $0) })
            let live = rows.filter { $0.state.exists }.map(\.key)
            // The values: a scan of the whole entity when most of it goes, else by key.
            let values =
                live.count > 1_000 ? try store.storedRows(of: schema) : try store.storedRows(of: schema, withKeys: live)
            var stored: [RowKey: [Value]] = [:]
            stored.reserveCapacity(values.count)
            for row in values { stored[RowKey(row[0])] = row }
            var changes: [RowChange] = []
            changes.reserveCapacity(rows.count)
            for (key, state, missing) in rows {
                guard state.exists else {
                    changes.append(
                        RowChange(key: key, causalLength: state.causalLength, versions: [state.base], values: []))
                    continue
                }
                guard let values = stored[RowKey(key)] else { continue }
                var versions = [state.base]
                var changed: [ColumnChange] = []
                changed.reserveCapacity(missing.count)
                for column in missing {
                    let version = state.version(of: column)
                    var index = 0
                    if version != state.base {
                        index = versions.firstIndex(of: version) ?? versions.count
                        if index == versions.count { versions.append(version) }
                    }
                    let stored = position[column]!
                    changed.append(ColumnChange(column: stored - 1, version: index, value: values[stored]))
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
