import Foundation
@_spi(SharkReplication) import SharkORM

/// How far this store has received a site's changes when some of them wait in the pending
/// values (``SyncPendingRecord``) for a migration: every change of site `id` up to `through`
/// is here, applied or kept, though the store's vector does not claim them yet.
@Model(entity: "SharkSyncKept")
final class SyncKeptRecord {
    var id: UUID
    var through: Int64 = 0

    init(id: UUID, through: Int64) {
        self.id = id
        self.through = through
    }
}

/// What a store a migration behind received beyond its version vector.
///
/// An import claims a site in the vector only when it applied every change of that site in
/// the file; a file whose values wait for a migration (an entity or a column this store does
/// not have yet) leaves its sites unclaimed, and so does every later file of those sites,
/// since each continues from where the unclaimed one ended. Without a record of them, a
/// store would claim those sites only when some peer sent all of their changes again after
/// its migration; and a device pulling a hub's files in order would never see them again.
///
/// So the store records, per site, how far the chain of files it received goes (applied or
/// kept): ``SyncEngine/receivedVector()`` reports it, so that nothing is sent or downloaded
/// twice, and the engine claims each of these sites in its vector once the migration lets it
/// apply what was kept of that site (``SyncEngine/applyPending()``, when it opens).
enum KeptThrough {
    /// `records` as a vector.
    static func vector(of records: [SyncKeptRecord]) -> VersionVector {
        var vector = VersionVector()
        for record in records where record.through > 0 { vector[record.id] = UInt64(record.through) }
        return vector
    }

    /// The store's records, read in `tx` (none on a read-only store that never kept any).
    static func records(in tx: WriteTransaction, of engine: SyncEngine) throws -> [SyncKeptRecord] {
        guard engine.recordsKept else { return [] }
        return try tx.fetch(SyncKeptRecord.query(in: engine.store))
    }

    /// Claims in `sites` every site received through a kept record whose changes are all
    /// applied now: none of the values still kept (`stillKept`) was written by it or names
    /// it. The records claimed (and those the vector caught up with) are removed; so are the
    /// records of sites whose kept values a merge dropped (`lost`), unclaimed: only a peer
    /// sending those changes again can claim them.
    static func claim(
        _ records: [SyncKeptRecord], except stillKept: Set<UUID>, forgetting lost: Set<UUID>,
        into sites: inout SiteTable, in tx: WriteTransaction
    ) throws {
        var removed: [SyncKeptRecord] = []
        for record in records {
            let seen = sites.record(of: record.id)?.seen ?? 0
            if lost.contains(record.id) {
                removed.append(record)
                continue
            }
            if record.through > seen {
                guard !stillKept.contains(record.id) else { continue }
                _ = sites.number(of: record.id)
                sites.record(of: record.id)?.seen = record.through
            }
            removed.append(record)
        }
        guard !removed.isEmpty else { return }
        try tx.writingBookkeeping {
            try tx.commit(sites.records)
            for record in removed { try tx.remove(record) }
        }
    }
}

extension PendingRow {
    /// Every site this kept row's changes come from or name: none of them may be claimed
    /// while it is kept. Records kept before they noted their sites name the sites of their
    /// values and removal.
    var sites: Set<UUID> {
        var sites = origins.union(lost)
        if let removal { sites.insert(removal.site) }
        for (column, entry) in values {
            sites.insert(entry.version.site)
            sites.formUnion(Self.sites(of: entry, rule: rules[column] ?? .lastWriterWins))
        }
        return sites
    }
}
