import Foundation
import SharkORM
import SharkSync

/// A file's bytes as they lie in the hub's database, read chunk by chunk where the change-log
/// reader asks (its header, its trailer, then once through for the digest and the frames'
/// checksums): the whole file is never in memory. Used inside one read transaction, by one
/// thread at a time (hence `@unchecked Sendable`: it is handed to the store's reader).
final class StoredFileInput: ChangeLogInput, @unchecked Sendable {
    let store: Store
    let file: Int64
    let length: Int
    private var cached: (offset: Int, bytes: Data)?
    /// The database's own failure, when reading a chunk failed: not the file's fault.
    private(set) var storeFailure: (any Error)?

    init(store: Store, file: Int64, length: Int) {
        self.store = store
        self.file = file
        self.length = length
    }

    func bytes(at offset: Int, count: Int) throws(SyncError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset + count <= length else {
            throw .file(.cannotRead, "bytes \(offset)..<\(offset + count) are outside the file")
        }
        var result: [UInt8] = []
        result.reserveCapacity(count)
        var position = offset
        while position < offset + count {
            let chunk = try chunk(containing: position)
            let start = chunk.bytes.startIndex + (position - chunk.offset)
            let end = min(chunk.bytes.endIndex, start + (offset + count - position))
            result.append(contentsOf: chunk.bytes[start..<end])
            position += end - start
        }
        return result
    }

    private func chunk(containing position: Int) throws(SyncError) -> (offset: Int, bytes: Data) {
        if let cached, position >= cached.offset, position < cached.offset + cached.bytes.count { return cached }
        let file = self.file
        let found: HubChunk?
        do {
            found = try HubChunk.query(in: store).where(\.file == file && \.offset <= Int64(position))
                .orderByDescending(\.offset).first()
        } catch {
            storeFailure = error
            throw .file(.cannotRead, "reading the file's chunks failed")
        }
        guard let found, position < Int(found.offset) + found.bytes.count else {
            throw .file(.cannotRead, "the chunk holding byte \(position) is missing")
        }
        let entry = (offset: Int(found.offset), bytes: found.bytes)
        cached = entry
        return entry
    }
}
