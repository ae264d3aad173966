import Foundation
@_spi(SharkReplication) import SharkORM

extension SyncEngine {
    /// Forgets the removals every replica has heard of, and returns how many it forgot.
    ///
    /// A removed row leaves a tombstone (its key, causal length and the removal's version), so
    /// that a replica which still has the row learns of the removal, and an old update of the
    /// row arriving late cannot bring it back. Once the removal is covered by the version
    /// vector of **every** replica of the lineage, none needs to hear of it again: its version
    /// is forgotten and it is never exported again. The key and its causal length stay (a few
    /// bytes), so that a row inserted again under the same key (a `String` key, say) starts a
    /// newer incarnation every replica accepts. Pass the vectors of all the replicas. One left
    /// out is caught by the horizon this records (the vectors' meet, carried by every file):
    /// an export since its vector, and an import of its files, throw
    /// ``SyncError/belowHorizon(vector:horizon:)`` until it catches up from a full export,
    /// which carries the forgotten removals.
    ///
    /// ```swift
    /// let vectors = [try laptop.versionVector(), try phone.versionVector()]   // every peer
    /// let forgotten = try tablet.forgetTombstones(seenBy: vectors)
    /// ```
    @discardableResult
    public func forgetTombstones(seenBy peers: [VersionVector]) throws -> Int {
        try store.write { tx in
            var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
            var forgotten = 0
            let arrival = try ArrivalLog.begin(in: tx, sites: sites, filters: filters)
            try tx.writingBookkeeping {
                for table in tables.values {
                    var compacted: [(key: Value, state: Data, isNew: Bool)] = []
                    for (key, data) in try table.allStates(in: store) {
                        let state = try table.decode(data, sites: sites)
                        guard !state.exists, state.base.site != RowMerge.unknown.site,
                            peers.allSatisfy({ $0.covers(site: state.base.site, sequence: state.base.sequence) })
                        else { continue }
                        var forgottenVersion = RowMerge.unknown
                        forgottenVersion.causalLength = state.causalLength
                        compacted.append(
                            (
                                key, sites.encode(RowState(causalLength: state.causalLength, base: forgottenVersion)),
                                false
                            ))
                    }
                    try table.write(compacted, at: arrival, in: tx)
                    forgotten += compacted.count
                }
            }
            if forgotten > 0 {
                try ArrivalLog.record(arrival, sites: &sites, in: tx)
                // No removal above the vectors' meet was forgotten: that is the horizon.
                try TombstoneHorizon.raise(to: VersionVector.meet(peers), in: tx, of: self)
            }
            return forgotten
        }
    }
}
