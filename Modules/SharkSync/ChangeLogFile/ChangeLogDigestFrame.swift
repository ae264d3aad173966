import Foundation

/// The last frame of a file whose flags have bit 2 (``ChangeLogFormat/digestFlag``): the
/// sender's ``SyncDigest`` at the export's snapshot, deflated and sealed like the rows, so a
/// sealed file never shows it in clear.
///
/// ```
/// varint   the entity count E of the header (a position no entity has)
/// 32 bytes SHA-256 of the synced schema
/// 32 bytes the content sum, big-endian
/// varint   live row count
/// ```
enum ChangeLogDigestFrame {
    static func payload(entityCount: Int, schema: [UInt8], content: DigestSum, rowCount: Int) -> [UInt8] {
        var writer = ByteWriter(capacity: 80)
        writer.append(varint: entityCount)
        writer.append(schema)
        writer.append(content.bytes)
        writer.append(varint: rowCount)
        return writer.bytes
    }

    /// The digest after the entity position, paired with the file's `vector`.
    static func read(_ reader: inout ByteReader, vector: VersionVector) throws(SyncError) -> SyncDigest {
        let schema = Data(try reader.bytes(32))
        let content = Data(try reader.bytes(32))
        let rowCount = try reader.count(limit: Int.max)
        guard reader.isAtEnd else { throw reader.corrupt("bytes follow the digest", kind: .trailingBytes) }
        return SyncDigest(schema: schema, content: content, rowCount: rowCount, vector: vector)
    }
}
