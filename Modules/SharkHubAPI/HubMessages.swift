import Foundation

// The JSON bodies of the hub's HTTP API (docs/hub.md, "The API"), shared by the hub that
// writes them and the clients that read them. Version vectors travel as objects from a site's
// UUID to its highest sequence number.

/// Where an upload stands, as the hub answers each chunk (`PUT /v1/spaces/{space}/files/{file}`).
///
/// ```swift
/// let state = try JSONDecoder().decode(UploadState.self, from: body)
/// if let sequence = state.sequence { print("accepted as file \(sequence)") }
/// ```
public struct UploadState: Sendable, Hashable, Codable {
    public var fileID: UUID
    /// The bytes the hub holds: the next chunk starts here.
    public var received: Int64
    public var length: Int64
    /// The file's place in its space once accepted (the upload is then done); nil before.
    public var sequence: Int64?

    public init(fileID: UUID, received: Int64, length: Int64, sequence: Int64?) {
        self.fileID = fileID
        self.received = received
        self.length = length
        self.sequence = sequence
    }
}

/// An accepted file, as the hub lists it.
///
/// ```swift
/// let page = try JSONDecoder().decode(HubFileList.self, from: body)
/// for file in page.files where file.source != sync.site { print(file.sequence, file.length) }
/// ```
public struct HubFileInfo: Sendable, Hashable, Codable {
    /// Its place in the space: files are listed in this order, which is commit order.
    public var sequence: Int64
    public var fileID: UUID
    /// The sync site that wrote it.
    public var source: UUID
    public var length: Int64
    /// What its writer assumed the receiver had, and what it holds.
    public var since: [String: UInt64]
    public var vector: [String: UInt64]

    public init(
        sequence: Int64, fileID: UUID, source: UUID, length: Int64, since: [String: UInt64],
        vector: [String: UInt64]
    ) {
        self.sequence = sequence
        self.fileID = fileID
        self.source = source
        self.length = length
        self.since = since
        self.vector = vector
    }
}

/// A page of a space's accepted files (`GET /v1/spaces/{space}/files?after=…`), and what all
/// of them hold together.
///
/// ```swift
/// var after: Int64 = 0
/// repeat {
///     let list = try JSONDecoder().decode(HubFileList.self, from: body)   // each page's body
///     after = list.next
/// } while false   // while list.hasMore, in a real client
/// ```
public struct HubFileList: Sendable, Hashable, Codable {
    public var files: [HubFileInfo]
    /// Where the next page starts: the last sequence of this page (or the one asked after,
    /// when the page is empty). List again after it while ``hasMore``.
    public var next: Int64
    /// Whether the space has files after this page.
    public var hasMore: Bool
    /// The sequence of the space's last accepted file.
    public var lastSequence: Int64
    /// What the space's files hold together (a version vector, site UUID to sequence).
    public var held: [String: UInt64]
    /// What the files the hub dropped held together (nil when it dropped none): a device
    /// whose vector does not cover it starts from ``snapshot``, which does.
    public var dropped: [String: UInt64]?
    /// The space's newest snapshot, verified or not (nil when it has none): one a device
    /// whose vector is its own verifies.
    public var snapshot: HubSnapshotInfo?
    /// The space's newest verified snapshot (nil when none is): the one a device joining
    /// late starts from, and the one retention goes by.
    public var verifiedSnapshot: HubSnapshotInfo?
    /// The bytes of the files accepted since the newest snapshot (or since the first file):
    /// what a device weighs before it uploads a snapshot.
    public var bytesSinceSnapshot: Int64?

    public init(
        files: [HubFileInfo], next: Int64, hasMore: Bool, lastSequence: Int64, held: [String: UInt64],
        dropped: [String: UInt64]? = nil, snapshot: HubSnapshotInfo? = nil, verifiedSnapshot: HubSnapshotInfo? = nil,
        bytesSinceSnapshot: Int64? = nil
    ) {
        self.files = files
        self.next = next
        self.hasMore = hasMore
        self.lastSequence = lastSequence
        self.held = held
        self.dropped = dropped
        self.snapshot = snapshot
        self.verifiedSnapshot = verifiedSnapshot
        self.bytesSinceSnapshot = bytesSinceSnapshot
    }
}

/// A refusal as the hub's JSON body carries it: `error` names the reason (`unauthorized`,
/// `forbidden`, `notFound`, `badRequest`, `uploadOffset`, `notCovered`, `rejectedFile`,
/// `tooLarge`, `quotaExceeded`, `fileTaken`, `tooManyUploads`, `rateLimited`, `alreadyAccepted`,
/// `unavailable`, `stale`, `retiredKey`, `digestMismatch`).
///
/// ```swift
/// let refusal = try JSONDecoder().decode(HubErrorBody.self, from: body)
/// if refusal.error == "uploadOffset", let received = refusal.received { print("go on from \(received)") }
/// ```
public struct HubErrorBody: Sendable, Hashable, Codable {
    /// The reason's name.
    public var error: String
    public var message: String
    /// For `uploadOffset`: the bytes the hub holds of the file.
    public var received: Int64?
    /// For `notCovered`: what the space's files hold (site UUID to sequence).
    public var held: [String: UInt64]?

    public init(error: String, message: String, received: Int64? = nil, held: [String: UInt64]? = nil) {
        self.error = error
        self.message = message
        self.received = received
        self.held = held
    }
}
