import Foundation

/// What a hub lets one device or space take.
///
/// ```swift
/// var limits = HubLimits()
/// limits.maximumFileBytes = 256 << 20
/// let small = try await Hub(store: Store(.memory), limits: limits)
/// ```
public struct HubLimits: Sendable, Hashable {
    /// The largest file the hub accepts: 1 GiB.
    public var maximumFileBytes: Int64 = 1 << 30
    /// How many bytes a new space may hold unless its creation says otherwise: 10 GiB. An
    /// upload reserves its whole length with its first chunk.
    public var defaultQuotaBytes: Int64 = 10 << 30
    /// The smallest chunk but a file's last: 64 KiB, so that a file is never stored or read
    /// back as thousands of tiny pieces.
    public var minimumChunkBytes = 64 << 10
    /// How many unfinished uploads one device may have at once: 4.
    public var maximumPendingUploads = 4
    /// How long an upload may stay unfinished after its last chunk before the hub removes it
    /// and gives its bytes back to the quota: 24 hours. A device whose state was lost never
    /// comes back to finish it; one that does later starts the file again.
    public var unfinishedUploadLifetime: TimeInterval = 24 * 3600
    /// Requests a device may make per minute (all at once, then one every `60 / n`
    /// seconds), counted by each hub process on its own; then `429 rateLimited` with
    /// `Retry-After`. 0: no limit. 1,200 by default: a 1 GiB file is 1,024 chunks.
    public var requestsPerMinutePerDevice = 1200
    /// Requests an address may make per minute, authenticated or not, counted before the
    /// token is checked, so that a flood never reaches the database. `/v1/health` is not
    /// counted. Behind a reverse proxy every request comes from the proxy's address: set 0
    /// there and limit at the proxy. 0: no limit.
    public var requestsPerMinutePerAddress = 3000
    /// How long a device may go without acknowledging what it applied (every sync ends with
    /// it) before it is stale: 90 days. A stale device no longer holds back the space's
    /// acknowledged vector, so the others may forget removals it has not seen; the hub refuses
    /// its listings, downloads and uploads (``HubError/Reason/stale``) until it catches up
    /// from a full export and acknowledges a vector that covers the others'.
    public var staleDeviceAge: TimeInterval = 90 * 24 * 3600

    public init() {}
}
