import Foundation
import SharkHubAPI
import SharkORM
import SharkSync

extension Hub {
    /// The largest page ``files(in:after:limit:)`` returns.
    static let pageLimit = 1000

    /// The files of `space` accepted after `sequence`, in order, at most `limit`.
    func files(in space: String, after sequence: Int64, limit: Int) async throws -> HubFileList {
        guard sequence >= 0, (1...Self.pageLimit).contains(limit) else {
            throw HubError(.badRequest, "after is 0 or more, limit 1 to \(Self.pageLimit)")
        }
        let store = self.store
        return try await store.read { _ in
            guard let owner = try store.find(HubSpace.self, id: space) else {
                throw HubError(.notFound, "no space \(space)")
            }
            let files = try HubFile.query(in: store).where(
                \.space == space && \.isSnapshot == false && \.sequence > sequence
            ).orderBy(\.sequence).limit(limit).fetch()
            let next = files.last?.sequence ?? sequence
            let dropped = VectorText.entries(owner.dropped)
            return HubFileList(
                files: files.map {
                    HubFileInfo(
                        sequence: $0.sequence, fileID: $0.fileID, source: $0.source ?? UUID(), length: $0.length,
                        since: VectorText.entries($0.since), vector: VectorText.entries($0.vector))
                },
                // A short page is the last: the files after it may have been dropped, so the
                // last sequence alone cannot tell.
                next: next, hasMore: files.count == limit && owner.lastSequence > next,
                lastSequence: owner.lastSequence,
                held: VectorText.entries(owner.held), dropped: dropped.isEmpty ? nil : dropped,
                snapshot: try self.newestSnapshot(of: space).map(Self.info),
                verifiedSnapshot: try self.verifiedSnapshot(of: space).map(Self.info),
                bytesSinceSnapshot: owner.bytesSinceSnapshot)
        }
    }

    /// The accepted file `fileID` of `space`: its row and length.
    func acceptedFile(_ fileID: UUID, in space: String) async throws -> (row: Int64, length: Int64) {
        guard
            let file = try await HubFile.query(in: store).where(
                \.space == space && \.fileID == fileID && \.isSnapshot == false && \.sequence > 0
            )
            .first()
        else { throw HubError(.notFound, "space \(space) has no file \(fileID)") }
        return (file.id, file.length)
    }

    /// The stored chunk of file row `file` that starts at `offset`, or nil past its end.
    func chunk(of file: Int64, at offset: Int64) async throws -> Data? {
        try await HubChunk.query(in: store).where(\.file == file && \.offset == offset).first()?.bytes
    }
}
