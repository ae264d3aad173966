import Foundation
@_spi(SharkReplication) import SharkORM

/// One site (replica) this store has heard of: its number in this store's row states, and
/// the highest of its transactions applied here (this store's version vector). The local
/// site's row also carries the clock, the lineage and the transaction counter.
@Model(entity: "SharkSyncSite")
final class SyncSiteRecord {
    var id: UUID
    /// Small and local: what the row states of this store refer to the site by.
    var number: Int = 0
    /// The highest sequence number of the site's transactions whose effects this store has.
    var seen: Int64 = 0
    var isLocal: Bool = false
    /// For the local site: the last hybrid logical timestamp issued or received.
    var clock: Int64 = 0
    /// For the local site: the lineage the store syncs in.
    var lineage: String = ""

    init(id: UUID, number: Int) {
        self.id = id
        self.number = number
    }
}
