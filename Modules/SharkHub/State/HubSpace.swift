import Foundation
import SharkORM

/// One app database that devices sync through the hub: one sync lineage, its files in the
/// order the hub accepted them, and what they hold together.
@Model(entity: "hub_spaces")
final class HubSpace {
    /// The space's name, as in the hub's URLs.
    var id: String
    /// The sync lineage every file of the space must carry.
    var lineage: String = ""
    /// What the accepted files hold together (a version vector, as ``VectorText``): a file is
    /// accepted only when this covers its `since`, so nothing in between is missing.
    var held: String = "{}"
    /// The most the space's devices have ever all applied: every acknowledged vector the
    /// hub answered, joined (as ``VectorText``). It only grows, so it bounds what any device
    /// may have forgotten: a stale device rejoins only with a vector that covers it, and a
    /// file whose vector does not cover it is refused, since devices that forgot removals
    /// below it could not import it.
    var acknowledgedMark: String = "{}"
    /// How many acknowledgements the space has had. Raised by each, so that every one
    /// writes this row: two at once on several hub processes then conflict, and one runs
    /// again on what the other committed (a stale device could otherwise rejoin below a mark
    /// another device was being told at the same moment).
    var acknowledgements: Int64 = 0
    /// The sequence number of the last accepted file. Raised in the transaction that accepts
    /// a file, so that numbers follow commit order even with several hub processes on one
    /// database (two such transactions conflict on this row; one runs again).
    var lastSequence: Int64 = 0
    /// The highest id of a key that sealed an accepted file (`ChangeLogHeader.keyID`).
    /// Once a device sealed a file with a rotated key, a file sealed with an older one is
    /// refused (``HubError/Reason/retiredKey``): what devices write after a rotation stays
    /// out of reach of a device that kept only the old key.
    var keyID: Int64 = 0
    /// The number of the space's last accepted snapshot (see ``HubFile/isSnapshot``).
    var lastSnapshot: Int64 = 0
    /// What the files retention dropped held together (as ``VectorText``): a device whose
    /// vector does not cover it starts from the newest verified snapshot, which does (and so
    /// does every snapshot accepted after it).
    var dropped: String = "{}"
    /// The bytes of the files accepted since the last snapshot was: a device uploads a
    /// snapshot once they pass its threshold.
    var bytesSinceSnapshot: Int64 = 0
    /// The bytes of files stored or being uploaded, against ``quotaBytes``.
    var storedBytes: Int64 = 0
    /// How many bytes the space may hold.
    var quotaBytes: Int64 = 0
    var createdAt: Date = Date(timeIntervalSince1970: 0)

    init(id: String, lineage: String, quotaBytes: Int64, createdAt: Date) {
        self.id = id
        self.lineage = lineage
        self.quotaBytes = quotaBytes
        self.createdAt = createdAt
    }
}
