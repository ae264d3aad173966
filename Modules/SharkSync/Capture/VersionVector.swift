import Foundation

/// What a replica has seen: for each site (replica) it heard of, the highest sequence number
/// of that site's transactions whose effects it has. Send yours to a peer, and its export
/// holds only what you are missing.
///
/// ```swift
/// let mine = try laptop.versionVector()
/// let file = try phone.exportChanges(since: mine)   // only what the laptop has not seen
/// ```
public struct VersionVector: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The highest sequence number seen, per site.
    public var entries: [UUID: UInt64]

    public init(_ entries: [UUID: UInt64] = [:]) { self.entries = entries }

    /// The highest sequence number of `site` seen: 0 when none.
    public subscript(site: UUID) -> UInt64 {
        get { entries[site] ?? 0 }
        set { entries[site] = newValue == 0 ? nil : newValue }
    }

    /// Whether the change numbered `sequence` of `site` is covered.
    func covers(site: UUID, sequence: UInt64) -> Bool { self[site] >= sequence }

    /// Whether every change `other` counts is counted here too.
    package func covers(_ other: VersionVector) -> Bool {
        other.entries.allSatisfy { self[$0.key] >= $0.value }
    }

    /// Grows this vector to count what `other` counts too: the least vector covering both.
    package mutating func formJoin(_ other: VersionVector) {
        for (site, sequence) in other.entries where self[site] < sequence { self[site] = sequence }
    }

    /// What every one of `vectors` counts: the least of their entries, site by site (empty
    /// for no vector).
    package static func meet(_ vectors: [VersionVector]) -> VersionVector {
        guard var meet = vectors.first else { return VersionVector() }
        for vector in vectors.dropFirst() {
            for (site, sequence) in meet.entries { meet[site] = min(sequence, vector[site]) }
        }
        return meet
    }

    /// Sites in byte order, for a stable text and file layout.
    var sortedSites: [UUID] { entries.keys.sorted(by: SiteOrder.precedes) }

    public var description: String {
        "[" + sortedSites.map { "\($0.uuidString): \(self[$0])" }.joined(separator: ", ") + "]"
    }
}
