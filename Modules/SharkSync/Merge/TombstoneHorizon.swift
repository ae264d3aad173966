import Foundation
@_spi(SharkReplication) import SharkORM

/// One entry of a store's tombstone horizon: the removals of site `id` up to `forgotten`
/// may have been forgotten here, or by a replica this store heard the horizon from.
@Model(entity: "SharkSyncHorizon")
final class SyncHorizonRecord {
    var id: UUID
    var forgotten: Int64 = 0

    init(id: UUID, forgotten: Int64) {
        self.id = id
        self.forgotten = forgotten
    }
}

/// The tombstone horizon: how far removals may have been forgotten, per site.
///
/// ``SyncEngine/forgetTombstones(seenBy:)`` drops the versions of removals every vector it is
/// given covers, so incremental exports stop carrying them. A replica that was left out of
/// those vectors, and still has a removed row, would then never hear of the removal, and its
/// row could come back on replicas that never held the tombstone. The horizon closes both
/// ways: it is the meet of the vectors a forgetting used (no removal above it was forgotten),
/// every file carries it, an import joins it into the receiver's, and a vector that does not
/// cover it is refused (``SyncError/belowHorizon(vector:horizon:)``): as the `since` of an
/// export, and as the vector of an imported file. A full export carries the forgotten
/// removals too (key and causal length, with no version), so a replica behind the horizon
/// catches up from one, and a replica seeded from one has every tombstone.
enum TombstoneHorizon {
    /// The horizon `records` hold.
    static func vector(of records: [SyncHorizonRecord]) -> VersionVector {
        var vector = VersionVector()
        for record in records where record.forgotten > 0 { vector[record.id] = UInt64(record.forgotten) }
        return vector
    }

    /// The store's horizon, read in `snapshot`; empty where the store has no horizon table
    /// yet (a read-only store synced before horizons existed).
    static func read(in snapshot: ReadTransaction, of engine: SyncEngine) throws -> VersionVector {
        guard engine.recordsHorizon else { return VersionVector() }
        return vector(of: try snapshot.fetch(SyncHorizonRecord.query(in: engine.store)))
    }

    /// The store's horizon, read in `tx`.
    static func read(in tx: WriteTransaction, of engine: SyncEngine) throws -> VersionVector {
        guard engine.recordsHorizon else { return VersionVector() }
        return vector(of: try tx.fetch(SyncHorizonRecord.query(in: engine.store)))
    }

    /// Raises the store's horizon to cover `raised` too, as bookkeeping of `tx`.
    static func raise(to raised: VersionVector, in tx: WriteTransaction, of engine: SyncEngine) throws {
        guard !raised.entries.isEmpty else { return }
        let records = try tx.fetch(SyncHorizonRecord.query(in: engine.store))
        var changed: [SyncHorizonRecord] = []
        for site in raised.sortedSites {
            let sequence = Int64(clamping: raised[site])
            if let record = records.first(where: { $0.id == site }) {
                guard record.forgotten < sequence else { continue }
                record.forgotten = sequence
                changed.append(record)
            } else {
                changed.append(SyncHorizonRecord(id: site, forgotten: sequence))
            }
        }
        guard !changed.isEmpty else { return }
        try tx.writingBookkeeping { try tx.commit(changed) }
    }
}
