import Foundation
import SharkHubAPI
import SharkORM
import SharkSync

/// What storing a chunk came to: where the upload stands, and whether this chunk made the
/// hub accept the file (not a file it held already).
struct ReceivedChunk: Sendable {
    let state: UploadState
    let acceptedFile: Bool
}

extension Hub {
    /// Stores one chunk of the file `fileID`, `length` bytes in all, at `offset`, from
    /// `device`. Chunks arrive in order: one that does not start where the upload stands is
    /// refused with ``HubError/Reason/uploadOffset`` (and where it stands), so an upload cut
    /// off goes on from there. The last chunk makes the hub check the whole file (its envelope,
    /// without the key; its lineage, source and `since`) and accept it: only then, after its
    /// database commit, does the answer carry a sequence. A file the space already holds is
    /// accepted again at once, and stored once.
    ///
    /// A snapshot (`snapshotTag` given: its uploader's keyed digest tag) arrives the same way,
    /// and is checked and accepted as one (``acceptSnapshot(_:header:space:owner:in:)``).
    func receive(
        chunk: Data, offset: Int64, length: Int64, fileID: UUID, snapshotTag: Data? = nil,
        from device: AuthenticatedDevice
    ) async throws -> ReceivedChunk {
        guard length > 0, length <= maximumFileBytes else {
            throw HubError(.tooLarge, "a file is 1 to \(maximumFileBytes) bytes, not \(length)")
        }
        guard chunk.count <= Self.chunkLimit else {
            throw HubError(.tooLarge, "a chunk holds at most \(Self.chunkLimit) bytes")
        }
        // Compared without adding, so that no offset overflows.
        guard offset >= 0, !chunk.isEmpty, offset <= length - Int64(chunk.count) else {
            throw HubError(.badRequest, "a chunk of \(chunk.count) bytes at \(offset) does not fit a file of \(length)")
        }
        let isLast = offset + Int64(chunk.count) == length
        guard isLast || chunk.count >= minimumChunkBytes else {
            throw HubError(.badRequest, "a chunk before the last holds at least \(minimumChunkBytes) bytes")
        }
        let (store, now, pendingLimit) = (self.store, clock(), maximumPendingUploads)
        let unfinishedLifetime = limits.unfinishedUploadLifetime
        let state = try await store.write { tx -> (UploadState, fileRow: Int64) in
            guard let space = try tx.find(HubSpace.self, id: device.space) else {
                throw HubError(.notFound, "no space \(device.space)")
            }
            let file: HubFile
            if let existing = try HubFile.query(in: store).where(\.space == space.id && \.fileID == fileID).first() {
                guard existing.length == length else {
                    throw HubError(.rejectedFile, "file \(fileID) is \(existing.length) bytes long here, not \(length)")
                }
                guard existing.isSnapshot == (snapshotTag != nil) else {
                    throw HubError(
                        .fileTaken, "\(fileID) is a \(existing.isSnapshot ? "snapshot" : "file") of the space already")
                }
                guard existing.digestTag == snapshotTag else {
                    throw HubError(.badRequest, "snapshot \(fileID) was begun with another digest tag")
                }
                if existing.sequence > 0 { return (Self.state(of: existing), existing.id) }
                guard existing.device == device.id else {
                    throw HubError(.fileTaken, "another device is uploading file \(fileID)")
                }
                // Every byte here (a retry of the last chunk, whose answer was lost, or a hub
                // that stopped before accepting): acceptance runs again.
                if existing.received == existing.length { return (Self.state(of: existing), existing.id) }
                // A chunk the hub holds already (its answer was lost): nothing to do.
                if offset + Int64(chunk.count) <= existing.received {
                    return (Self.state(of: existing), existing.id)
                }
                guard existing.received == offset else {
                    throw HubError(
                        .uploadOffset, "the upload stands at \(existing.received), not \(offset)",
                        received: existing.received)
                }
                file = existing
            } else {
                guard offset == 0 else {
                    throw HubError(.uploadOffset, "the upload has not begun: send its first chunk", received: 0)
                }
                let deviceID = device.id
                // The device's own expired uploads first: they no longer count.
                let expired = now.addingTimeInterval(-unfinishedLifetime)
                for stale in try HubFile.query(in: store).where(
                    \.device == deviceID && \.sequence == 0 && \.updatedAt < expired
                ).fetch() {
                    try Self.remove(stale, in: tx, adjusting: space)
                }
                let pending = try HubFile.query(in: store).where(\.device == deviceID && \.sequence == 0).count()
                guard pending < pendingLimit else {
                    throw HubError(.tooManyUploads, "this device has \(pending) unfinished uploads: finish one first")
                }
                // The whole length is reserved with the first chunk, so that an upload, once
                // begun, never fails for the quota halfway.
                guard space.storedBytes <= space.quotaBytes - length else {
                    throw HubError(
                        .quotaExceeded,
                        "space \(space.id) holds \(space.storedBytes) of \(space.quotaBytes) bytes: \(length) more do not fit"
                    )
                }
                space.storedBytes += length
                try tx.commit(space)
                file = HubFile(space: space.id, fileID: fileID, device: device.id, length: length, createdAt: now)
                file.isSnapshot = snapshotTag != nil
                file.digestTag = snapshotTag
                try tx.commit(file)
            }
            // The file's row first: of two requests with the same chunk, the second then
            // waits for or conflicts with the first (and runs again, to find the chunk there)
            // rather than failing on the chunk's unique index.
            file.received += Int64(chunk.count)
            file.updatedAt = now
            try tx.commit(file)
            try tx.commit(HubChunk(file: file.id, offset: offset, bytes: chunk))
            return (Self.state(of: file), file.id)
        }
        guard state.0.sequence == nil, state.0.received == length else {
            return ReceivedChunk(state: state.0, acceptedFile: false)
        }
        return try await accept(fileRow: state.fileRow, fileID: fileID, length: length, from: device)
    }

    /// Checks a fully received file and accepts it, or removes it with every chunk.
    private func accept(fileRow: Int64, fileID: UUID, length: Int64, from device: AuthenticatedDevice)
        async throws -> ReceivedChunk
    {
        let store = self.store
        let header: ChangeLogHeader
        let input = StoredFileInput(store: store, file: fileRow, length: Int(length))
        do {
            header = try await store.read { _ in try ChangeLogHeader(checkingEnvelopeOf: input) }
        } catch let error as SyncError {
            // The database failing is not the file's fault: the upload stays, complete, and
            // acceptance runs again when its last chunk is sent again.
            if let failure = input.storeFailure { throw failure }
            try await discard(fileRow: fileRow)
            throw HubError(.rejectedFile, "not a whole change log: \(error)")
        }
        // A refusal removes the file in the same transaction, then throws once it committed.
        let outcome = try await store.write { tx -> Result<ReceivedChunk, HubError> in
            guard let file = try tx.find(HubFile.self, id: fileRow),
                let space = try tx.find(HubSpace.self, id: device.space),
                let owner = try tx.find(HubDevice.self, id: device.id)
            else { throw HubError(.notFound, "the upload is gone") }
            if file.sequence > 0 {  // accepted by another request
                return .success(ReceivedChunk(state: Self.state(of: file), acceptedFile: false))
            }
            let held = VectorText.vector(space.held) ?? VersionVector()
            let (spaceID, source, ownerID) = (space.id, header.source, owner.id)
            let siteTaken =
                try HubDevice.query(in: store).where(\.space == spaceID && \.site == source && \.id != ownerID)
                .count() > 0
            var othersChanges = header.vector
            othersChanges[header.source] = 0
            var refusal: HubError?
            if owner.revokedAt != nil {
                refusal = HubError(.forbidden, "the token was revoked")
            } else if !header.isEncrypted {
                refusal = HubError(.rejectedFile, "the hub stores sealed files only: export with the space's key")
            } else if header.fileID != fileID {
                refusal = HubError(.rejectedFile, "the file's id is \(header.fileID), not \(fileID)")
            } else if header.lineage != space.lineage {
                refusal = HubError(
                    .rejectedFile, "the file is of lineage \(header.lineage), the space's is \(space.lineage)")
            } else if let site = owner.site, site != header.source {
                refusal = HubError(
                    .rejectedFile, "the file was written by site \(header.source), this device is \(site)")
            } else if owner.site == nil && siteTaken {
                refusal = HubError(.rejectedFile, "site \(header.source) belongs to another device of the space")
            } else if Int64(header.keyID) < space.keyID {
                // Before `since` is checked: an export again under the same key would only be
                // refused again.
                refusal = HubError(
                    .retiredKey,
                    "the file is sealed with key \(header.keyID), and the space's files with key \(space.keyID) "
                        + "since: give the device the space's new key and export again")
            } else if space.lastSequence > 0, Int64(header.keyID) > space.keyID + 1 {
                // The hub cannot check a key id, and never goes back to a lower one: a typing
                // slip (10 for 1) would lock out every device given the right key.
                refusal = HubError(
                    .rejectedFile,
                    "the file is sealed with key \(header.keyID), and the space's files with key \(space.keyID): a "
                        + "rotation takes the next id, \(space.keyID + 1)")
            } else if !held.covers(othersChanges) {
                // Other sites' changes reach a device through the hub, so a file cannot hold
                // more of them than the hub does; one that claimed to would make every device
                // export since a vector that skips its own changes.
                refusal = HubError(.rejectedFile, "the file claims other sites' changes the hub never relayed")
            } else if file.isSnapshot {
                refusal = try self.snapshotRefusal(header, space: space, held: held)
            } else if !held.covers(header.since) {
                refusal = HubError(
                    .notCovered, "the file assumes changes the hub does not hold: export again since its vector",
                    held: held)
            } else if !header.vector.covers(VectorText.vector(space.acknowledgedMark) ?? VersionVector()) {
                // Written before changes every device has applied since (a file left pending
                // while its device fell behind): devices that forgot removals there would
                // refuse it. A fresh export holds them.
                refusal = HubError(
                    .notCovered,
                    "the file was exported before changes every device of the space has applied: export again "
                        + "since its vector", held: held)
            }
            if let refusal {
                try Self.remove(file, in: tx)
                return .failure(refusal)
            }
            if owner.site == nil {
                owner.site = header.source
                try tx.commit(owner)
            }
            space.keyID = max(space.keyID, Int64(header.keyID))
            file.source = header.source
            file.since = VectorText.text(header.since)
            file.vector = VectorText.text(header.vector)
            file.keyID = Int64(header.keyID)
            if file.isSnapshot {
                try self.acceptSnapshot(file, space: space, in: tx)
                return .success(ReceivedChunk(state: Self.state(of: file), acceptedFile: true))
            }
            var joined = held
            joined.formJoin(header.vector)
            space.held = VectorText.text(joined)
            space.lastSequence += 1
            space.bytesSinceSnapshot += file.length
            try tx.commit(space)
            file.sequence = space.lastSequence
            try tx.commit(file)
            return .success(ReceivedChunk(state: Self.state(of: file), acceptedFile: true))
        }
        return try outcome.get()
    }

    /// Removes the unfinished upload `fileID` of `device`, with its chunks, and gives its
    /// bytes back to the quota: a device that will not finish a file says so rather than let
    /// it count against its uploads until it expires. An accepted file stays.
    func abandonUpload(_ fileID: UUID, from device: AuthenticatedDevice) async throws {
        let store = self.store
        try await store.write { tx in
            let space = device.space
            guard let file = try HubFile.query(in: store).where(\.space == space && \.fileID == fileID).first() else {
                throw HubError(.notFound, "space \(space) has no file \(fileID)")
            }
            guard file.sequence == 0 else {
                throw HubError(.alreadyAccepted, "file \(fileID) is accepted: the hub keeps it for every device")
            }
            guard file.device == device.id else {
                throw HubError(.fileTaken, "another device is uploading file \(fileID)")
            }
            try Self.remove(file, in: tx)
        }
    }

    /// Removes every upload left unfinished longer than
    /// ``HubLimits/unfinishedUploadLifetime``, in transactions of at most 100; returns how
    /// many. `shark serve` runs it every few minutes.
    ///
    /// ```swift
    /// let removed = try await hub.removeExpiredUploads()
    /// ```
    @discardableResult
    public func removeExpiredUploads() async throws -> Int {
        let store = self.store
        let expired = clock().addingTimeInterval(-limits.unfinishedUploadLifetime)
        var removed = 0
        while true {
            let count = try await store.write { tx -> Int in
                let stale = try HubFile.query(in: store).where(\.sequence == 0 && \.updatedAt < expired).limit(100)
                    .fetch()
                for file in stale { try Self.remove(file, in: tx) }
                return stale.count
            }
            removed += count
            if count < 100 { return removed }
        }
    }

    /// Removes an upload the hub refused, with its chunks, and gives its bytes back to the
    /// space's quota.
    private func discard(fileRow: Int64) async throws {
        try await store.write { tx in
            guard let file = try tx.find(HubFile.self, id: fileRow), file.sequence == 0 else { return }
            try Self.remove(file, in: tx)
        }
    }

    /// `space`, when given, is the transaction's object of the file's space, which the caller
    /// goes on changing: its bytes are given back there (a space read again here would be
    /// written over by the caller's).
    static func remove(_ file: HubFile, in tx: WriteTransaction, adjusting space: HubSpace? = nil) throws {
        let id = file.id
        try HubChunk.query(in: tx.store).where(\.file == id).removeAll()
        if let space = try space ?? tx.find(HubSpace.self, id: file.space) {
            space.storedBytes -= file.length
            try tx.commit(space)
        }
        try tx.remove(file)
    }

    static func state(of file: HubFile) -> UploadState {
        UploadState(
            fileID: file.fileID, received: file.received, length: file.length,
            sequence: file.sequence > 0 ? file.sequence : nil)
    }
}
