import Foundation
import SharkORM

/// A sealed change-log file of a space: being uploaded (``sequence`` 0) or accepted. A
/// snapshot (``isSnapshot``) is one too, a full export, numbered apart from the files.
@Model(entity: "hub_files")
final class HubFile {
    var id: Int64 = 0
    var space: String = ""
    /// The file's own id, from its header: a file uploaded twice is stored once.
    var fileID: UUID
    /// The device uploading it.
    var device: UUID
    /// Its length in bytes, announced with its first chunk.
    var length: Int64 = 0
    /// How many bytes have arrived: the next chunk starts here.
    var received: Int64 = 0
    /// Its place in the space once accepted (1, 2, …, in commit order); 0 while uploading.
    /// A snapshot's is its number among the space's snapshots.
    var sequence: Int64 = 0
    /// Whether it is a snapshot: listed and served apart from the files, never dropped by
    /// retention but replaced by a newer verified one.
    var isSnapshot: Bool = false
    /// The id of the key that sealed it, from its header.
    var keyID: Int64 = 0
    /// A snapshot's keyed digest tag, as its uploader gave it (`SnapshotVerification`).
    var digestTag: Data?
    /// The device that verified a snapshot (its digest tag equal under the same vector), and when.
    var verifiedBy: UUID?
    var verifiedAt: Date?
    /// From the accepted file's header: the site that wrote it, what it assumed and what it
    /// holds (version vectors as ``VectorText``).
    var source: UUID?
    var since: String = "{}"
    var vector: String = "{}"
    var createdAt: Date = Date(timeIntervalSince1970: 0)
    /// When its last chunk arrived: an upload left unfinished longer than
    /// ``HubLimits/unfinishedUploadLifetime`` is removed.
    var updatedAt: Date = Date(timeIntervalSince1970: 0)

    static let indexes: [Index<HubFile>] = [
        .unique(\.space, \.fileID), .on(\.space, \.sequence), .on(\.sequence, \.updatedAt),
    ]

    init(space: String, fileID: UUID, device: UUID, length: Int64, createdAt: Date) {
        self.space = space
        self.fileID = fileID
        self.device = device
        self.length = length
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }
}
