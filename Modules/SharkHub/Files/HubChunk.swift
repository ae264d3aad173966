import Foundation
import SharkORM

/// A piece of a file's bytes, at most ``Hub/chunkLimit`` long: a file is stored in pieces so
/// that no read or write of the hub's database holds a whole file (postgres-nio returns a
/// `bytea` whole).
@Model(entity: "hub_chunks")
final class HubChunk {
    var id: Int64 = 0
    /// The ``HubFile`` row it belongs to.
    var file: Int64 = 0
    /// Where in the file its bytes start.
    var offset: Int64 = 0
    var bytes: Data = Data()

    static let indexes: [Index<HubChunk>] = [.unique(\.file, \.offset)]

    init(file: Int64, offset: Int64, bytes: Data) {
        self.file = file
        self.offset = offset
        self.bytes = bytes
    }
}
