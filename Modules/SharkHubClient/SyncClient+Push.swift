import Foundation
import SharkSync

extension SyncClient {
    /// Pushes what the hub lacks of this device's changes: first a file left pending by an
    /// earlier sync (its exact bytes, resumed where the hub stands), then, while the device
    /// has changes of its own the hub does not hold, a new export since the hub's vector.
    func push(
        through connection: HubConnection, held: VersionVector, state: inout ClientState, report: inout SyncReport
    ) async throws {
        var held = held
        let pendingURL = stateFolder.appendingPathComponent(ClientState.pendingName)
        // A few rounds at most: a pending file, a fresh export, and one export again when
        // the hub answers that another device's file came in between (notCovered).
        for _ in 0..<4 {
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
                }
                continue
            }
            let vector = try await engine.versionVector()
            // Only the device's own changes are its to push: other sites' reach the hub
            // from their devices.
            guard vector[engine.site] > held[engine.site] else { return }
            connection.progress(.exporting)
            try await engine.exportChanges(since: held, key: key, to: pendingURL)
            let key = self.key
            let header = try await BlockingIO.run { try ChangeLogHeader(reading: pendingURL, key: key) }
            let length = try await BlockingIO.run {
                Int64(try pendingURL.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0)
            }
            state.pending = ClientState.PendingFile(
                fileID: header.fileID, length: length, vector: Self.entries(header.vector))
            try await state.save(to: stateFolder)
        }
    }

    private enum UploadOutcome {
        case accepted(sequence: Int64)
        case notCovered(held: VersionVector)
        case rejected(HubErrorBody, status: Int)
    }

    /// Uploads the pending file in chunks, each from where the hub says it stands, noting
    /// in the state how far it got.
    private func upload(
        _ pending: ClientState.PendingFile, from url: URL, through connection: HubConnection,
        state: inout ClientState, report: inout SyncReport
    ) async throws -> UploadOutcome {
        let chunkBytes = Int64(max(1, min(options.chunkBytes, 1 << 20)))
        let reader = try await ChunkReader.open(url)
        defer { reader.close() }
        // Every byte there but the file not accepted (the hub stopped in between): the last
        // chunk again makes the hub check and accept it.
        let lastChunk = (pending.length - 1) / chunkBytes * chunkBytes
        var offset = pending.received >= pending.length ? lastChunk : max(0, pending.received)
        var unchanged = 0
        while true {
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
                let next = answer.received >= pending.length ? lastChunk : answer.received
                unchanged = next <= offset ? unchanged + 1 : 0
                offset = next
            case .refused(let body, _) where body.error == "uploadOffset":
                let next = body.received ?? 0
                unchanged = next == offset ? unchanged + 1 : 0
                offset = min(max(0, next), pending.length - 1)
            case .refused(let body, _) where body.error == "notCovered":
                return .notCovered(held: try Self.vector(body.held ?? [:]))
            case .refused(let body, let status) where body.error == "rejectedFile":
                return .rejected(body, status: status)
            case .refused(let body, let status):
                throw SyncClientError(refusal: body, status: status)
            }
            guard unchanged < 3 else {
                throw SyncClientError(.badResponse, "the hub's upload of \(pending.fileID) stays at \(offset)")
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
