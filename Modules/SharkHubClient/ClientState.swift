import Foundation

/// What a device remembers between syncs, in `state.json` of its state folder: how far it
/// pulled the hub's list, and the file it is pushing. The pending file's bytes sit beside it
/// (`pending.sharklog`) until the hub accepts them: an export is not byte-reproducible (a new
/// file id, a new nonce), so an upload cut off resumes with the very same bytes.
///
/// Losing the folder loses nothing the hub holds: the device lists from the start again and
/// downloads only files whose changes it lacks; an unfinished upload is exported afresh.
/// The hub's address is not part of it: one hub reached by another name keeps the state, and
/// another hub (or one restored from a backup) is told apart by ``lastFileID``.
struct ClientState: Codable, Sendable, Equatable {
    /// Whose state this is: a folder reused for another space or database starts afresh.
    var space: String
    var site: UUID
    /// The hub's sequence of the last file this device went past (imported or skipped).
    var pulledThrough: Int64 = 0
    /// That file's id: listed again at the next sync, it must still hold that sequence.
    var lastFileID: UUID?
    /// That file's vector: a file the hub dropped since is told from another hub by it
    /// (the hub's `dropped` covers it).
    var lastFileVector: [String: UInt64]?
    /// The snapshot this device last downloaded to verify, whatever came of it: not
    /// downloaded again for that.
    var checkedSnapshot: UUID?
    /// The snapshot this device started from whose content did not match its uploader's:
    /// the device's store holds it, so it syncs no more until it is reset.
    var failedSnapshot: UUID?
    /// The file being pushed, until the hub accepts or refuses it.
    var pending: PendingFile?
    /// Uploads this device began and dropped (their bytes were lost): abandoned on the hub at
    /// the next sync.
    var abandoned: [UUID] = []

    struct PendingFile: Codable, Sendable, Equatable {
        var fileID: UUID
        var length: Int64
        /// The bytes the hub said it held at the last answer: an upload resumes there (the
        /// hub corrects it when it holds fewer).
        var received: Int64 = 0
        /// What the file holds (site UUID to sequence), joined to the hub's vector once accepted.
        var vector: [String: UInt64]
        /// The id of the key that sealed it (nil, read as 0, in states written before key
        /// ids): a file sealed before the device's key was rotated is exported again, so that
        /// nothing written on the device reaches the hub under the retired key.
        var keyID: UInt32?
    }

    static let fileName = "state.json"
    static let pendingName = "pending.sharklog"
    static let downloadName = "download.sharklog"
    static let snapshotName = "snapshot.sharklog"

    /// The state in `folder` for this space and site, or a fresh one.
    static func load(from folder: URL, space: String, site: UUID) async throws -> ClientState {
        let fresh = ClientState(space: space, site: site)
        let url = folder.appendingPathComponent(fileName)
        return try await BlockingIO.run {
            guard FileManager.default.fileExists(atPath: url.path) else { return fresh }
            let data: Data
            do { data = try Data(contentsOf: url) } catch {
                throw SyncClientError(.stateFolder, "cannot read \(url.path): \(error)")
            }
            // A damaged state file costs a listing from the start, not the sync.
            guard let state = try? JSONDecoder().decode(ClientState.self, from: data),
                state.space == space, state.site == site
            else { return fresh }
            // A pending file whose bytes are gone is exported again.
            // Saved at once: an export would replace the bytes the state still names.
            if let pending = state.pending {
                let bytes = folder.appendingPathComponent(pendingName)
                let size = (try? bytes.resourceValues(forKeys: [.fileSizeKey]))?.fileSize
                if size.map(Int64.init) != pending.length {
                    var repaired = state
                    repaired.pending = nil
                    repaired.abandoned.append(pending.fileID)
                    try repaired.write(to: url)
                    return repaired
                }
            }
            return state
        }
    }

    /// Writes the state whole or not at all (a temporary file renamed over the old one).
    func save(to folder: URL) async throws {
        let url = folder.appendingPathComponent(Self.fileName)
        let state = self
        try await BlockingIO.run { try state.write(to: url) }
    }

    /// Writes the state to `url` on the calling thread.
    private func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do { try encoder.encode(self).write(to: url, options: .atomic) } catch {
            throw SyncClientError(.stateFolder, "cannot write \(url.path): \(error)")
        }
    }
}
