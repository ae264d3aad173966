import Foundation
import SharkSync

extension SyncClient {
    /// Pushes what the hub lacks of this device's changes: first a file left pending by an
    /// earlier sync (its exact bytes, resumed where the hub stands), then, while the device
    /// has changes of its own the hub does not hold, a new export since the hub's vector.
    /// Returns what the hub holds, as far as the client knows.
    @discardableResult
    func push(
        through connection: HubConnection, held: VersionVector, state: inout ClientState, report: inout SyncReport
    ) async throws -> VersionVector {
        var held = held
        let pendingURL = stateFolder.appendingPathComponent(ClientState.pendingName)
        // Uploads this device dropped (their bytes lost) are abandoned on the hub, where they
        // would count against the device's unfinished uploads until they expire.
        if !state.abandoned.isEmpty {
            for fileID in state.abandoned { try await connection.abandon(fileID) }
            state.abandoned = []
            try await state.save(to: stateFolder)
        }
        // A few rounds at most: a pending file (dropped when sealed with a retired key), a
        // fresh export, and one export again when the hub answers that another device's file
        // came in between (notCovered).
        for _ in 0..<5 {
            if let pending = state.pending, pending.keyID ?? 0 < key.id {
                // Sealed before the device's key was rotated: dropped (and abandoned on the
                // hub, which keeps it if it accepted it already) for an export under the new
                // key.
                state.pending = nil
                state.abandoned.append(pending.fileID)
                try await state.save(to: stateFolder)
                try? await BlockingIO.run { try FileManager.default.removeItem(at: pendingURL) }
                for fileID in state.abandoned { try await connection.abandon(fileID) }
                state.abandoned = []
                try await state.save(to: stateFolder)
                continue
            }
            if let pending = state.pending {
                let outcome = try await upload(
                    pending, from: pendingURL, through: connection, state: &state, report: &report)
                state.pending = nil
                try await state.save(to: stateFolder)
                try? await BlockingIO.run { try FileManager.default.removeItem(at: pendingURL) }
                switch outcome {
                case .accepted(let sequence):
                    held.formJoin(try Self.vector(pending.vector))
                    report.filesPushed.append(sequence)
                case .notCovered(let hubHeld):
                    held = hubHeld
                case .rejected(let body, let status):
                    throw SyncClientError(refusal: body, status: status)
                case .dropped:
                    break
                }
                continue
            }
            let vector = try await engine.versionVector()
            // Only the device's own changes are its to push: other sites' reach the hub
            // from their devices.
            guard vector[engine.site] > held[engine.site] else { return held }
            connection.progress(.exporting)
            // The export says how many bytes it wrote; the header gives the file's id and vector.
            let length = Int64(try await engine.exportChanges(since: held, key: key, to: pendingURL))
            let key = self.key
            let header = try await BlockingIO.run { try ChangeLogHeader(reading: pendingURL, key: key) }
            state.pending = ClientState.PendingFile(
                fileID: header.fileID, length: length, vector: Self.entries(header.vector), keyID: header.keyID)
            try await state.save(to: stateFolder)
        }
        return held
    }

    private enum UploadOutcome {
        case accepted(sequence: Int64)
        case notCovered(held: VersionVector)
        case rejected(HubErrorBody, status: Int)
        case dropped
    }

    /// Uploads the pending file in chunks, each from where the hub says it stands, noting
    /// in the state how far it got.
    private func upload(
        _ pending: ClientState.PendingFile, from url: URL, through connection: HubConnection,
        state: inout ClientState, report: inout SyncReport
    ) async throws -> UploadOutcome {
        // Within the hub's bounds: a smaller chunk would be refused before the last.
        let chunkBytes = Int64(max(64 << 10, min(options.chunkBytes, 1 << 20)))
        let reader = try await ChunkReader.open(url)
        defer { reader.close() }
        // Every byte there but the file not accepted (the hub stopped in between): the last
        // chunk again makes the hub check and accept it.
        let lastChunk = (pending.length - 1) / chunkBytes * chunkBytes
        var offset = pending.received >= pending.length ? lastChunk : max(0, pending.received)
        // Each chunk once, a few answers that send it back, then a hub that does not let the
        // upload advance is not one this client understands.
        let maximumRequests = 2 * (pending.length / chunkBytes) + 8
        var requests: Int64 = 0
        while true {
            requests += 1
            guard requests <= maximumRequests else {
                throw SyncClientError(
                    .badResponse, "the hub's upload of \(pending.fileID) does not advance (at \(offset))")
            }
            let count = min(chunkBytes, pending.length - offset)
            let bytes = try await reader.read(count: Int(count), at: offset)
            let answer = try await connection.upload(bytes, of: pending.fileID, at: offset, length: pending.length)
            report.bytesUploaded += count
            switch answer {
            case .success(let answer):
                if let sequence = answer.sequence {
                    connection.progress(.accepted(file: pending.fileID, sequence: sequence))
                    return .accepted(sequence: sequence)
                }
                state.pending?.received = answer.received
                try await state.save(to: stateFolder)
                connection.progress(.uploading(file: pending.fileID, sent: answer.received, length: pending.length))
                offset = answer.received >= pending.length ? lastChunk : max(0, answer.received)
            case .refused(let body, _) where body.error == "uploadOffset":
                offset = min(max(0, body.received ?? 0), lastChunk)
            case .refused(let body, _) where body.error == "notCovered":
                return .notCovered(held: try Self.vector(body.held ?? [:]))
            case .refused(let body, let status) where body.error == "rejectedFile" || body.error == "retiredKey":
                // Dropped: sent again, it would be refused again (a retired key's file is
                // exported afresh once the device has the new key).
                return .rejected(body, status: status)
            case .refused(let body, _) where body.error == "fileTaken":
                // Another device's upload under this id: the file this device began as
                // another device (an earlier token). It is exported afresh.
                return .dropped
            case .refused(let body, let status):
                throw SyncClientError(refusal: body, status: status)
            }
        }
    }
}

/// Reads the pending file's chunks through the thread pool.
struct ChunkReader: Sendable {
    let handle: FileHandle

    static func open(_ url: URL) async throws -> ChunkReader {
        try await BlockingIO.run { ChunkReader(handle: try FileHandle(forReadingFrom: url)) }
    }

    func read(count: Int, at offset: Int64) async throws -> Data {
        let handle = self.handle
        return try await BlockingIO.run {
            try handle.seek(toOffset: UInt64(offset))
            let data = try handle.read(upToCount: count) ?? Data()
            guard data.count == count else {
                throw SyncClientError(.stateFolder, "the pending file ended before \(offset + Int64(count)) bytes")
            }
            return data
        }
    }

    func close() { try? handle.close() }
}
