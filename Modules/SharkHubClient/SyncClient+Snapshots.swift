import Foundation
@_spi(SharkReplication) import SharkORM
import SharkSync

// Snapshots (docs/hub.md, "Joining late"): a device joining late starts from the space's
// newest snapshot, a sealed full export another device uploaded, instead of every file before
// it; a device that can checks a snapshot it has not verified (its digest against the one the
// snapshot carries) and tells the hub, which drops old files only once one is verified; and
// a device uploads a new snapshot once enough has been synced since the last.

extension SyncClient {
    /// Imports a snapshot before the files (the newest verified one, or else the newest) when
    /// the device must (the hub dropped files it lacks) or may (`isNew` to the hub, and its
    /// vector does not cover the snapshot); a device that may, but cannot (the snapshot is
    /// sealed with a key it lacks, or the download fails), pulls the files instead. A
    /// snapshot it starts from and nobody verified yet, it verifies. `vector` is the
    /// device's, read again after the import.
    func startFromSnapshot(
        _ page: HubFileList, isNew: Bool, vector: inout VersionVector, through connection: HubConnection,
        state: inout ClientState, report: inout SyncReport
    ) async throws {
        let dropped = try Self.vector(page.dropped ?? [:])
        guard let snapshot = page.verifiedSnapshot ?? page.snapshot else {
            guard vector.covers(dropped) else {
                throw SyncClientError(
                    .stale, "the hub dropped files this device lacks, and has no snapshot to start from")
            }
            return
        }
        let mustStart = !vector.covers(dropped)
        let snapshotVector = try Self.vector(snapshot.vector)
        guard mustStart || (isNew && !vector.covers(snapshotVector)) else { return }
        // A snapshot it cannot open, a device that may skip skips; one that must is told why.
        guard mustStart || key.opens(keyID: snapshot.keyID) else { return }
        do {
            let summary = try await importSnapshot(snapshot, through: connection, report: &report)
            report.snapshotImported = snapshot.fileID
            vector = try await engine.receivedVector()
            // A device a migration behind holds what it cannot apply yet, and its digest
            // could not match: it leaves verifying to others.
            if try verifiable(snapshot, state: state) != nil, try await !engine.keepsPendingValues() {
                state.checkedSnapshot = snapshot.fileID
                try await state.save(to: stateFolder)
                if try await verify(snapshot, after: summary, through: connection, report: &report) == .different {
                    // The store holds content its uploader did not have: no sync may build on it.
                    state.failedSnapshot = snapshot.fileID
                    try await state.save(to: stateFolder)
                    throw Self.mismatch(snapshot, started: true)
                }
            }
        } catch let error where !mustStart && Self.isOptional(error) {
            // The files serve as well, only slower.
            return
        }
        guard vector.covers(dropped) else {
            throw SyncClientError(.badResponse, "the hub's snapshot does not hold what the files it dropped held")
        }
    }

    /// `snapshot` and its vector when this device can verify it: unverified, another
    /// device's, not checked by this one yet, sealed with a key it has, and verifying on.
    func verifiable(_ snapshot: HubSnapshotInfo?, state: ClientState) throws -> (HubSnapshotInfo, VersionVector)? {
        guard let snapshot, options.verifiesSnapshots, !snapshot.isVerified, snapshot.source != engine.site,
            state.checkedSnapshot != snapshot.fileID, key.opens(keyID: snapshot.keyID)
        else { return nil }
        return (snapshot, try Self.vector(snapshot.vector))
    }

    /// Verifies `snapshot` for the hub, the device's vector being its vector: downloaded and
    /// imported (changing nothing when all is well), digests compared. Checked once: any
    /// failure but a mismatch leaves it to other devices.
    func verifyOnly(
        _ snapshot: HubSnapshotInfo, through connection: HubConnection, state: inout ClientState,
        report: inout SyncReport
    ) async throws {
        // The vector the caller follows is the files'; the store's is what counts, and a
        // store that keeps values for a migration holds more than its vector says.
        guard try await engine.versionVector() == (try Self.vector(snapshot.vector)),
            try await !engine.keepsPendingValues()
        else { return }
        state.checkedSnapshot = snapshot.fileID
        try await state.save(to: stateFolder)
        let comparison: SyncDigestComparison
        do {
            let summary = try await importSnapshot(snapshot, through: connection, report: &report)
            comparison = try await verify(snapshot, after: summary, through: connection, report: &report)
        } catch let error where Self.isOptional(error) {
            return
        }
        if comparison == .different { throw Self.mismatch(snapshot, started: false) }
    }

    /// Downloads and imports `snapshot`.
    private func importSnapshot(
        _ snapshot: HubSnapshotInfo, through connection: HubConnection, report: inout SyncReport
    ) async throws -> SyncImportSummary {
        let download = stateFolder.appendingPathComponent(ClientState.downloadName)
        let summary: SyncImportSummary
        do {
            try await connection.download(snapshot, to: download)
            summary = try await engine.importChanges(from: download, key: key)
        } catch {
            try? await BlockingIO.run { try FileManager.default.removeItem(at: download) }
            throw error
        }
        try? await BlockingIO.run { try FileManager.default.removeItem(at: download) }
        report.bytesDownloaded += snapshot.length
        report.rowsApplied += summary.rowsApplied
        connection.progress(.imported(file: snapshot.fileID, rowsApplied: summary.rowsApplied))
        return summary
    }

    /// Whether `error`, met on a snapshot a device may do without, lets the sync go on: any
    /// but a cancellation and a mismatch.
    private static func isOptional(_ error: any Error) -> Bool {
        if error is CancellationError { return false }
        if let error = error as? SyncClientError, error.reason == .snapshotMismatch { return false }
        return true
    }

    private static func mismatch(_ snapshot: HubSnapshotInfo, started: Bool) -> SyncClientError {
        SyncClientError(
            .snapshotMismatch,
            "snapshot \(snapshot.fileID) did not reproduce its uploader's content (the digests differ under the "
                + "same vector): the hub no longer offers it"
                + (started
                    ? "; this device started from it, and syncs no more: delete its database and state folder, "
                        + "then sync again" : ""))
    }

    /// Compares the device's digest with the one `snapshot` carried and tells the hub: equal
    /// verifies it; different (under the same vector) makes the hub drop it. A device whose
    /// vector is not the snapshot's (it had changes of its own) cannot tell, and says nothing.
    private func verify(
        _ snapshot: HubSnapshotInfo, after summary: SyncImportSummary, through connection: HubConnection,
        report: inout SyncReport
    ) async throws -> SyncDigestComparison {
        let comparison = try await engine.compareDigest(after: summary)
        let digest: SyncDigest
        switch comparison {
        case .equal:
            // Equal: the device's own digest is the one the snapshot carries.
            guard let sent = summary.senderDigest else { return comparison }
            digest = sent
        case .different:
            digest = try await engine.digest()
        case .notComparable:
            return comparison
        }
        guard let tag = key.digestTag(of: digest, keyID: snapshot.keyID) else { return comparison }
        let answer = try await connection.verify(
            snapshot: snapshot.fileID, vector: Self.entries(digest.vector), tag: hexadecimal(tag))
        switch answer {
        case .success:
            if comparison == .equal {
                report.snapshotVerified = snapshot.fileID
                connection.progress(.snapshotVerified(file: snapshot.fileID))
            }
        case .refused(let body, _) where body.error == "digestMismatch" || body.error == "notFound":
            break  // another device's report came first, or a newer snapshot replaced it
        case .refused(let body, let status):
            throw SyncClientError(refusal: body, status: status)
        }
        return comparison
    }

    /// Uploads a snapshot when the files the hub accepted since the last one pass
    /// ``Options/snapshotAfterBytes`` and the hub holds everything this device has (it pushed
    /// first). Not resumed: one cut off is abandoned at the next sync, and the next device
    /// past the threshold uploads one. A refusal (another device's snapshot came first, or a
    /// change arrived in between) skips it.
    func uploadSnapshotIfDue(
        _ page: HubFileList, held: VersionVector, through connection: HubConnection, state: inout ClientState,
        report: inout SyncReport
    ) async throws {
        guard options.snapshotAfterBytes > 0, let since = page.bytesSinceSnapshot,
            since >= options.snapshotAfterBytes, state.pending == nil
        else { return }
        let vector = try await engine.versionVector()
        // A device a migration behind would leave out the values it keeps for it.
        guard held.covers(vector), try await !engine.keepsPendingValues() else { return }
        connection.progress(.exportingSnapshot)
        let url = stateFolder.appendingPathComponent(ClientState.snapshotName)
        let number: Int64?
        let fileID: UUID
        do {
            let length = Int64(try await engine.exportChanges(key: key, to: url))
            let key = self.key
            let header = try await BlockingIO.run { try ChangeLogHeader(reading: url, key: key) }
            guard let digest = header.digest, let tag = key.digestTag(of: digest, keyID: header.keyID) else {
                throw SyncClientError(.stateFolder, "the snapshot exported at \(url.path) carries no digest")
            }
            fileID = header.fileID
            // Noted first: a sync cut off mid-upload abandons it at the next.
            state.abandoned.append(fileID)
            try await state.save(to: stateFolder)
            number = try await uploadSnapshot(
                fileID, from: url, length: length, tag: hexadecimal(tag), through: connection, report: &report)
        } catch {
            try? await BlockingIO.run { try FileManager.default.removeItem(at: url) }
            throw error
        }
        try? await BlockingIO.run { try FileManager.default.removeItem(at: url) }
        if number != nil { state.abandoned.removeAll { $0 == fileID } }
        try await state.save(to: stateFolder)
        for fileID in state.abandoned { try await connection.abandon(fileID) }
        state.abandoned = []
        try await state.save(to: stateFolder)
        report.snapshotUploaded = number
    }

    /// Sends the snapshot at `url` in chunks; its number once the hub accepted it, nil when
    /// the hub refused it.
    private func uploadSnapshot(
        _ fileID: UUID, from url: URL, length: Int64, tag: String, through connection: HubConnection,
        report: inout SyncReport
    ) async throws -> Int64? {
        let chunkBytes = Int64(max(64 << 10, min(options.chunkBytes, 1 << 20)))
        let reader = try await ChunkReader.open(url)
        defer { reader.close() }
        var offset: Int64 = 0
        // Each chunk once, and a few answers that send one back.
        for _ in 0..<(2 * (length / chunkBytes) + 8) {
            let count = min(chunkBytes, length - offset)
            let bytes = try await reader.read(count: Int(count), at: offset)
            let answer = try await connection.upload(
                bytes, of: fileID, at: offset, length: length, snapshotTag: tag)
            report.bytesUploaded += count
            switch answer {
            case .success(let state):
                if let number = state.sequence {
                    connection.progress(.snapshotAccepted(file: fileID, number: number))
                    return number
                }
                connection.progress(.uploading(file: fileID, sent: state.received, length: length))
                offset = min(max(0, state.received), (length - 1) / chunkBytes * chunkBytes)
            case .refused(let body, _) where body.error == "uploadOffset":
                offset = min(max(0, body.received ?? 0), (length - 1) / chunkBytes * chunkBytes)
            case .refused(let body, let status)
            where ["unauthorized", "forbidden", "stale"].contains(body.error):
                throw SyncClientError(refusal: body, status: status)
            case .refused:
                return nil
            }
        }
        throw SyncClientError(.badResponse, "the hub's upload of snapshot \(fileID) does not advance (at \(offset))")
    }
}
