import Foundation
import SharkSync

extension SyncClient {
    /// Lists the hub's files after the last one this device went past, page by page, and
    /// imports each it lacks, in the hub's order; first the space's snapshot, when the device
    /// starts from it (``startFromSnapshot(_:isNew:vector:through:state:report:)``), and the
    /// newest snapshot, verified, once the device's vector reaches it. Returns the last page
    /// (what the hub holds, and its snapshots).
    ///
    /// A file is skipped without downloading when it is the device's own or when the
    /// device's received vector covers it (its changes came another way, or before a state
    /// folder was lost, or wait in the store for a migration: `SyncEngine.receivedVector()`). The state is saved after each file, so a sync cut off goes on from there.
    func pull(through connection: HubConnection, state: inout ClientState, report: inout SyncReport) async throws
        -> HubFileList
    {
        connection.progress(.listing(after: state.pulledThrough))
        // New to the hub (or its state lost): such a device may start from the snapshot.
        let isNew = state.pulledThrough == 0
        // The last file the device went past is listed again. Another file under its number
        // means the numbering changed (a hub restored from a backup, then given new files, or
        // another hub): list from the start; the vector check keeps what the device holds
        // from being downloaded again. A file the hub dropped (what it held within the
        // listing's `dropped`) is no such sign: the listing goes on after it.
        var page = try await connection.files(after: max(0, state.pulledThrough - 1))
        if state.pulledThrough > 0 {
            if let first = page.files.first, first.sequence == state.pulledThrough, first.fileID == state.lastFileID {
                page.files.removeFirst()
            } else if try !Self.lastFileWasDropped(state, from: page) {
                state.pulledThrough = 0
                state.lastFileID = nil
                state.lastFileVector = nil
                connection.progress(.listing(after: 0))
                page = try await connection.files(after: 0)
            }
        }
        // What the device received, kept for a migration or applied: a file it covers is
        // not downloaded again.
        var vector = try await engine.receivedVector()
        try await startFromSnapshot(
            page, isNew: isNew, vector: &vector, through: connection, state: &state, report: &report)
        // The newest snapshot, to verify when the device's vector is its vector: now, or once
        // the files before it are in.
        var toVerify = try verifiable(page.snapshot, state: state)
        if let (snapshot, snapshotVector) = toVerify, vector == snapshotVector {
            try await verifyOnly(snapshot, through: connection, state: &state, report: &report)
            toVerify = nil
        }
        let download = stateFolder.appendingPathComponent(ClientState.downloadName)
        while true {
            for file in page.files {
                let fileVector = try Self.vector(file.vector)
                if file.source == engine.site || vector.covers(fileVector) {
                    report.filesSkipped += 1
                } else {
                    try await connection.download(file, to: download)
                    let summary = try await engine.importChanges(from: download, key: key)
                    try? await BlockingIO.run { try FileManager.default.removeItem(at: download) }
                    vector.formJoin(fileVector)
                    report.filesPulled += 1
                    report.rowsApplied += summary.rowsApplied
                    report.bytesDownloaded += file.length
                    connection.progress(.imported(file: file.fileID, rowsApplied: summary.rowsApplied))
                }
                state.pulledThrough = file.sequence
                state.lastFileID = file.fileID
                state.lastFileVector = file.vector
                try await state.save(to: stateFolder)
                if let (snapshot, snapshotVector) = toVerify, vector == snapshotVector {
                    try await verifyOnly(snapshot, through: connection, state: &state, report: &report)
                    toVerify = nil
                }
            }
            guard page.hasMore else { break }
            connection.progress(.listing(after: page.next))
            page = try await connection.files(after: page.next)
        }
        return page
    }

    /// Whether the last file the device went past is missing from `page` because the hub
    /// dropped it: the page starts after it, the hub numbered at least that many files, and
    /// what the dropped files held covers it.
    static func lastFileWasDropped(_ state: ClientState, from page: HubFileList) throws -> Bool {
        guard let last = state.lastFileVector, let dropped = page.dropped,
            page.files.first.map({ $0.sequence > state.pulledThrough }) ?? true,
            page.lastSequence >= state.pulledThrough
        else { return false }
        return try vector(dropped).covers(try vector(last))
    }

    /// A vector as the hub's JSON carries it; a site that is not a UUID is a bad answer.
    static func vector(_ entries: [String: UInt64]) throws -> VersionVector {
        guard let vector = VersionVector(jsonEntries: entries) else {
            throw SyncClientError(.badResponse, "the hub sent a version vector with a site that is not a UUID")
        }
        return vector
    }

    static func entries(_ vector: VersionVector) -> [String: UInt64] { vector.jsonEntries }
}
