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
        let records = try snapshot.fetch(SyncRowRecord.query(in: store).orderBy(\.id))
        var byEntity: [String: [SyncRowRecord]] = [:]
        for record in records { byEntity[record.entity, default: []].append(record) }
        var entities: [ChangeLogEntity] = []
        for name in byEntity.keys.sorted() {
            guard let schema = schemas[name] else { continue }
            let columns = schema.columns.dropFirst().map { ChangeLogColumn(name: $0.name, type: $0.type) }
            let position = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.name, $0) })
            var stored: [Value: StoredRow] = [:]
            for row in try store.fetchRows(of: name) { stored[row.key] = row }
            var rows: [RowChange] = []
            for record in byEntity[name] ?? [] {
                let state = try sites.decode(record.state)
                var reader = ByteReader(Array(record.key), context: "sync metadata")
                let key = try reader.value()
                if !state.exists {
                    if !peer.covers(site: state.base.site, sequence: state.base.sequence) {
                        rows.append(
                            RowChange(key: key, causalLength: state.causalLength, versions: [state.base], values: []))
                    }
                    continue
                }
                guard let row = stored[key] else { continue }
                var versions = [state.base]
                var values: [ColumnChange] = []
                for column in columns {
                    let version = state.version(of: column.name)
                    guard !peer.covers(site: version.site, sequence: version.sequence) else { continue }
                    var index = versions.firstIndex(of: version)
                    if index == nil {
                        versions.append(version)
                        index = versions.count - 1
                    }
                    values.append(
                        ColumnChange(column: position[column.name]!, version: index!, value: row[column.name] ?? .null))
                }
                if values.isEmpty { continue }
                rows.append(RowChange(key: key, causalLength: state.causalLength, versions: versions, values: values))
            }
            if !rows.isEmpty {
                entities.append(ChangeLogEntity(name: name, keyKind: schema.keyKind, columns: columns, rows: rows))
            }
        }
        return ChangeLog(
            fileID: UUID(), source: site, lineage: lineage, since: peer, vector: sites.vector, entities: entities)
    }
}
