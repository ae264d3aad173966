import Foundation
import SharkHubAPI
import SharkORM
import SharkSync

// Snapshots: sealed full exports that devices upload, from which a device joining late starts
// instead of every file before them. The hub checks a snapshot's envelope like a file's but
// cannot open it, so a snapshot counts for retention (Hub+Retention) only once another device
// imported it, found its own digest equal to the one the snapshot carries, and reported the
// same keyed digest tag (`ChangeLogKey.digestTag`) under the same vector.

extension Hub {
    /// Why the hub refuses the snapshot `header` describes, or nil: it must be a full export
    /// (it carries its writer's digest, since nothing), hold nothing the hub does not (its
    /// uploader pushed first), and cover what was dropped and the space's newest snapshot, so
    /// that each snapshot holds at least what the ones before it did.
    func snapshotRefusal(_ header: ChangeLogHeader, space: HubSpace, held: VersionVector) throws -> HubError? {
        guard header.carriesDigest, header.since.entries.isEmpty else {
            return HubError(.rejectedFile, "a snapshot is a full export: one that carries its writer's digest")
        }
        guard held.covers(header.vector) else {
            return HubError(
                .notCovered, "the snapshot holds changes the hub does not: push them first, then export again",
                held: held)
        }
        guard header.vector.covers(VectorText.vector(space.dropped) ?? VersionVector()) else {
            return HubError(
                .notCovered, "the snapshot does not hold what the space's dropped files did: export again", held: held)
        }
        // The newest, verified or not: an older snapshot never replaces a newer one.
        if let newest = try newestSnapshot(of: space.id),
            !header.vector.covers(VectorText.vector(newest.vector) ?? VersionVector())
        {
            return HubError(
                .notCovered, "the snapshot holds less than the space's newest one: sync, then export again",
                held: held)
        }
        return nil
    }

    /// Numbers the checked snapshot `file` and keeps it as the space's newest; the older
    /// snapshots that were never verified go (a verified one stays until a newer is verified).
    func acceptSnapshot(_ file: HubFile, space: HubSpace, in tx: WriteTransaction) throws {
        let spaceID = space.id
        let unverified = try HubFile.query(in: tx.store).where(
            \.space == spaceID && \.isSnapshot == true && \.sequence > 0 && \.verifiedBy == nil
        ).fetch()
        for older in unverified { try Self.remove(older, in: tx, adjusting: space) }
        space.lastSnapshot += 1
        space.bytesSinceSnapshot = 0
        try tx.commit(space)
        file.sequence = space.lastSnapshot
        try tx.commit(file)
    }

    /// The newest accepted snapshot of `space`, verified or not.
    func newestSnapshot(of space: String) throws -> HubFile? {
        try HubFile.query(in: store).where(\.space == space && \.isSnapshot == true && \.sequence > 0)
            .orderByDescending(\.sequence).first()
    }

    /// The newest verified snapshot of `space`: the one retention goes by.
    func verifiedSnapshot(of space: String) throws -> HubFile? {
        try HubFile.query(in: store).where(
            \.space == space && \.isSnapshot == true && \.sequence > 0 && \.verifiedBy != nil
        ).orderByDescending(\.sequence).first()
    }

    /// `snapshot` as the hub lists it.
    static func info(of snapshot: HubFile) -> HubSnapshotInfo {
        HubSnapshotInfo(
            number: snapshot.sequence, fileID: snapshot.fileID, source: snapshot.source ?? UUID(),
            length: snapshot.length, vector: VectorText.entries(snapshot.vector),
            keyID: UInt32(clamping: snapshot.keyID), isVerified: snapshot.verifiedBy != nil)
    }

    /// The accepted snapshot `fileID` of `space`: its row and length.
    func acceptedSnapshot(_ fileID: UUID, in space: String) async throws -> (row: Int64, length: Int64) {
        guard
            let file = try await HubFile.query(in: store).where(
                \.space == space && \.fileID == fileID && \.isSnapshot == true && \.sequence > 0
            ).first()
        else { throw HubError(.notFound, "space \(space) has no snapshot \(fileID)") }
        return (file.id, file.length)
    }

    /// Records that `device` imported the snapshot `fileID` and found its own digest equal to
    /// the snapshot's: its report must carry the snapshot's vector and the uploader's digest
    /// tag. The first such report from another device than the uploader verifies it; the
    /// verified snapshots before it go, and retention then runs for the space.
    ///
    /// A report under the snapshot's vector with another tag means the device's import gave
    /// another digest: the snapshot, unless already verified, is removed, so that no other
    /// device starts from it (`409 digestMismatch`). A report under another vector changes
    /// nothing (`409 digestMismatch` too): the device had other changes, and its digest says
    /// nothing about the snapshot.
    func verifySnapshot(_ fileID: UUID, vector: VersionVector, tag: Data, from device: AuthenticatedDevice)
        async throws -> HubSnapshotInfo
    {
        let (store, now) = (self.store, clock())
        let outcome = try await store.write { tx -> Result<HubSnapshotInfo, HubError> in
            let space = device.space
            guard
                let snapshot = try HubFile.query(in: store).where(
                    \.space == space && \.fileID == fileID && \.isSnapshot == true && \.sequence > 0
                ).first(),
                let owner = try tx.find(HubSpace.self, id: space)
            else { throw HubError(.notFound, "space \(space) has no snapshot \(fileID)") }
            guard snapshot.device != device.id else {
                throw HubError(.badRequest, "a device cannot verify its own snapshot")
            }
            guard snapshot.verifiedBy == nil else { return .success(Self.info(of: snapshot)) }
            guard let stored = VectorText.vector(snapshot.vector), stored.covers(vector), vector.covers(stored) else {
                return .failure(
                    HubError(
                        .digestMismatch,
                        "the device's vector is not the snapshot's: its digest cannot verify it (it had other changes)"
                    ))
            }
            guard let expected = snapshot.digestTag, constantTimeEqual(expected, tag) else {
                try Self.remove(snapshot, in: tx, adjusting: owner)
                return .failure(
                    HubError(
                        .digestMismatch,
                        "the device's digest differs from the snapshot's under the same vector: the hub dropped the "
                            + "snapshot"))
            }
            snapshot.verifiedBy = device.id
            snapshot.verifiedAt = now
            try tx.commit(snapshot)
            let number = snapshot.sequence
            let older = try HubFile.query(in: store).where(
                \.space == space && \.isSnapshot == true && \.sequence > 0 && \.sequence < number
            ).fetch()
            for replaced in older { try Self.remove(replaced, in: tx, adjusting: owner) }
            return .success(Self.info(of: snapshot))
        }
        let info = try outcome.get()
        // Committed: a failure to drop files now is not the verification's, and housekeeping
        // runs it again.
        _ = try? await dropCoveredFiles(in: device.space)
        return info
    }

}
