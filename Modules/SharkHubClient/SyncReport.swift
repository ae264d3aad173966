import Foundation
import SharkSync

/// What one ``SyncClient/sync(progress:)`` did.
///
/// ```swift
/// let report = try await client.sync()
/// print("pulled \(report.filesPulled) files (\(report.rowsApplied) rows), pushed \(report.filesPushed.count)")
/// ```
public struct SyncReport: Sendable, Hashable {
    /// Files of other devices downloaded and imported.
    public var filesPulled = 0
    /// Rows those imports changed.
    public var rowsApplied = 0
    /// Files listed but not downloaded: the device's own, or ones whose changes it holds.
    public var filesSkipped = 0
    /// The hub's sequence numbers of the files this device pushed and the hub accepted.
    public var filesPushed: [Int64] = []
    public var bytesDownloaded: Int64 = 0
    public var bytesUploaded: Int64 = 0
    /// Requests tried again after a transient failure.
    public var retries = 0
    /// What every active device of the space has applied, as the hub answered this device's
    /// acknowledgement at the end of the sync: a removal it covers has reached them all.
    public var acknowledged = VersionVector()
    /// Tombstones forgotten after the sync (``SyncClient/Options/forgetsTombstones``).
    public var tombstonesForgotten = 0
    /// The snapshot this device started from (imported before the files after it), if it did.
    public var snapshotImported: UUID?
    /// The snapshot this device verified for the hub (its digest equal to the snapshot's).
    public var snapshotVerified: UUID?
    /// The number of the snapshot this device uploaded and the hub accepted, if it did.
    public var snapshotUploaded: Int64?

    public init() {}
}

/// A step of a sync, as ``SyncClient/sync(progress:)`` reports it while it goes.
///
/// ```swift
/// _ = try await client.sync { step in
///     if case .uploading(_, let sent, let total) = step { print("\(sent) of \(total) bytes") }
/// }
/// ```
public enum SyncProgress: Sendable, Hashable {
    /// Reading the hub's list of files after this sequence.
    case listing(after: Int64)
    /// Bytes of a file downloaded so far.
    case downloading(file: UUID, received: Int64, length: Int64)
    /// A downloaded file imported.
    case imported(file: UUID, rowsApplied: Int)
    /// Exporting what the hub lacks.
    case exporting
    /// Bytes of the device's file the hub holds so far.
    case uploading(file: UUID, sent: Int64, length: Int64)
    /// The hub accepted the device's file as this sequence.
    case accepted(file: UUID, sequence: Int64)
    /// A request failed for a reason that may pass; it is tried again after `delay`.
    case retrying(attempt: Int, delay: Duration, reason: String)
    /// Exporting a snapshot of the whole store, for devices joining late.
    case exportingSnapshot
    /// The hub accepted the device's snapshot as this number.
    case snapshotAccepted(file: UUID, number: Int64)
    /// The device verified another's snapshot for the hub (its digest equal).
    case snapshotVerified(file: UUID)
}
