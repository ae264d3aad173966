import Foundation
import SharkORM
import SharkSync

// Retention: the hub drops a file once no device can need it. A device that lacks a file's
// changes is either counted among the space's devices, and then its acknowledged vector does
// not cover the file, or it joins late or catches up, and then it starts from the verified
// snapshot. So a file both cover is dropped; what the dropped files held is kept as the
// space's `dropped` vector, which tells a device whose vector does not reach it to start
// from the snapshot.

extension Hub {
    /// Files one transaction of ``dropCoveredFiles(in:)`` looks at.
    private static let retentionPage = 500

    /// Drops the accepted files of `space` that its newest verified snapshot and every counted
    /// device's acknowledged vector both cover, giving their bytes back to the quota; returns
    /// how many. Nothing is dropped before a snapshot is verified, nor while a device added
    /// to the space has not synced yet (it counts as having applied nothing). `shark serve`
    /// runs it every few minutes, and after each verification.
    ///
    /// ```swift
    /// let dropped = try await hub.dropCoveredFiles(in: "notes")
    /// ```
    @discardableResult
    public func dropCoveredFiles(in space: String) async throws -> Int {
        let (store, now) = (self.store, clock())
        var after: Int64 = 0
        var dropped = 0
        while true {
            let start = after
            let (count, last) = try await store.write { tx -> (Int, Int64?) in
                guard let owner = try tx.find(HubSpace.self, id: space),
                    let snapshot = try self.verifiedSnapshot(of: space),
                    let covered = VectorText.vector(snapshot.vector)
                else { return (0, nil) }
                let devices = try HubDevice.query(in: store).where(\.space == space).fetch()
                let bound = VersionVector.meet([covered, self.everyoneApplied(devices, at: now)])
                guard !bound.entries.isEmpty else { return (0, nil) }
                let page = try HubFile.query(in: store).where(
                    \.space == space && \.isSnapshot == false && \.sequence > start
                ).orderBy(\.sequence).limit(Self.retentionPage).fetch()
                var droppedVector = VectorText.vector(owner.dropped) ?? VersionVector()
                var count = 0
                for file in page {
                    guard let vector = VectorText.vector(file.vector), bound.covers(vector) else { continue }
                    droppedVector.formJoin(vector)
                    try Self.remove(file, in: tx, adjusting: owner)
                    count += 1
                }
                if count > 0 {
                    owner.dropped = VectorText.text(droppedVector)
                    try tx.commit(owner)
                }
                return (count, page.count == Self.retentionPage ? page.last?.sequence : nil)
            }
            dropped += count
            guard let last else { return dropped }
            after = last
        }
    }

    /// ``dropCoveredFiles(in:)`` for every space; returns how many files went. A space that
    /// fails does not stop the others: the first failure is thrown once all were tried.
    ///
    /// ```swift
    /// let dropped = try await hub.dropCoveredFiles()
    /// ```
    @discardableResult
    public func dropCoveredFiles() async throws -> Int {
        var dropped = 0
        var failure: (any Error)?
        for space in try await HubSpace.query(in: store).fetch() {
            do { dropped += try await dropCoveredFiles(in: space.id) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
        return dropped
    }
}
