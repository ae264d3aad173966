import Foundation
import SharkORM

/// Records, inside each transaction that changes synced rows, the new state of every row it
/// touched (see ``RowState``): the transaction observer of a ``SyncEngine``. The metadata
/// commits or rolls back with the changes; rolled-back savepoints never reach it.
final class ChangeCapture: TransactionObserver {
    let synced: Set<String>
    /// The non-key columns of each synced entity, to tell an update of every column.
    let columns: [String: [String]]
    let site: UUID
    let now: @Sendable () -> UInt64

    init(schemas: [EntitySchema], site: UUID, now: @escaping @Sendable () -> UInt64) {
        synced = Set(schemas.map(\.name))
        columns = Dictionary(uniqueKeysWithValues: schemas.map { ($0.name, $0.columns.dropFirst().map(\.name)) })
        self.site = site
        self.now = now
    }

    /// Raw SQL can report no row states: it may not write synced entities or the metadata.
    var protectedEntities: Set<String> { synced.union(SyncEngine.metadataEntities) }

    func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
        // Imported changes carry their versions already: the import records them itself.
        let local = changes.filter { $0.origin == .local && synced.contains($0.entity) }
        guard !local.isEmpty else { return }
        let store = transaction.store
        var sites = SiteTable(try transaction.fetch(SyncSiteRecord.query(in: store)))
        guard let localSite = sites.local else {
            throw SyncError.misuse("the store's sync metadata has no local site")
        }
        var clock = HybridLogicalClock(last: UInt64(localSite.clock))
        let stamp = TransactionStamp(
            timestamp: clock.tick(now: now()), site: site, sequence: UInt64(localSite.seen) + 1)

        // Each row once, in the order first touched, its changes applied in order.
        var records: [String: SyncRowRecord] = [:]
        var states: [String: RowState] = [:]
        var order: [String] = []
        for change in local {
            guard let key = change.key else { continue }  // raw SQL: refused for synced entities
            let id = SyncRowRecord.identifier(entity: change.entity, key: key)
            if states[id] == nil {
                order.append(id)
                if let record = try transaction.find(SyncRowRecord.self, id: id) {
                    records[id] = record
                    states[id] = try sites.decode(record.state)
                } else {
                    records[id] = SyncRowRecord(
                        id: id, entity: change.entity, key: Data(SyncRowRecord.encoded(key)), state: Data())
                }
            }
            var state = states[id]
            switch change.operation {
            case .insert:
                if state == nil { state = .inserted(stamp) } else { state!.recordInsert(stamp) }
            case .update:
                let all = columns[change.entity] ?? []
                if state == nil {
                    // A row stored before sync was enabled: every column is news to peers.
                    state = .inserted(stamp)
                } else {
                    state!.recordUpdate(
                        change.changedColumns, allColumns: Set(change.changedColumns).isSuperset(of: all), stamp)
                }
            case .delete:
                if state == nil { state = .inserted(stamp) }
                state!.recordRemoval(stamp)
            case .unknown:
                continue
            }
            states[id] = state
        }
        let written = order.compactMap { id -> SyncRowRecord? in
            guard let state = states[id], let record = records[id] else { return nil }
            record.state = sites.encode(state)
            return record
        }
        localSite.seen = Int64(stamp.sequence)
        localSite.clock = Int64(clock.last)
        try transaction.commit(written)
        try transaction.commit(sites.records)
    }
}
