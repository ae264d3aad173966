import Foundation
import SharkORM

/// The sync state of one row of a synced entity (see ``RowState``): one row of metadata per
/// synced row, whatever how many times or how many columns changed.
@Model(entity: "SharkSyncRow")
final class SyncRowRecord {
    /// The entity and the row's key (``SyncRowRecord/identifier(entity:key:)``).
    var id: String
    var entity: String = ""
    /// The row's key, encoded as a tagged value.
    var key: Data = Data()
    /// The ``RowState``, encoded with the store's site numbers (``SiteTable``).
    var state: Data = Data()

    init(id: String, entity: String, key: Data, state: Data) {
        self.id = id
        self.entity = entity
        self.key = key
        self.state = state
    }

    /// One string per row of every synced entity: the entity, a separator no entity name
    /// holds, and the key's tagged encoding in hexadecimal.
    static func identifier(entity: String, key: Value) -> String {
        entity + "\u{1F}" + hexadecimal(encoded(key))
    }

    static func encoded(_ key: Value) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(value: key)
        return writer.bytes
    }
}

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
