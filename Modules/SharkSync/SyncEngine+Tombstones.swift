import Foundation
import SharkORM

extension SyncEngine {
    /// Forgets the tombstones of removed rows that every replica has heard of, and returns how
    /// many it forgot.
    ///
    /// A removed row leaves a tombstone (its key, causal length and the removal's version), so
    /// that a replica which still has the row learns of the removal, and an old update of the
    /// row arriving late cannot bring it back. Once the removal is covered by the version
    /// vector of **every** replica of the lineage, none can send the row again, and the
    /// tombstone can go. Pass the vectors of all of them: a replica left out that still has
    /// the row would bring it back with its next file.
    ///
    /// ```swift
    /// let vectors = [try laptop.versionVector(), try phone.versionVector()]   // every peer
    /// let forgotten = try tablet.forgetTombstones(seenBy: vectors)
    /// ```
    @discardableResult
    public func forgetTombstones(seenBy peers: [VersionVector]) throws -> Int {
        try store.write { tx in
            let sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
            var forgotten = 0
            try tx.writingBookkeeping {
                for table in tables.values {
                    for (key, data) in try table.allStates(in: store) {
                        let state = try table.decode(data, sites: sites)
                        guard !state.exists,
                            peers.allSatisfy({ $0.covers(site: state.base.site, sequence: state.base.sequence) })
                        else { continue }
                        try tx.deleteRow(withKey: key, schema: table.schema)
                        forgotten += 1
                    }
                }
            }
            return forgotten
        }
    }
}
