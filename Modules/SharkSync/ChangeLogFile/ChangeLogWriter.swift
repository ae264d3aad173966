import Crypto
import Foundation
@_spi(SharkReplication) import SharkORM

/// Writes a ``ChangeLog`` as a file (docs/sync-format.md): preamble, header, frames of at
/// most ``ChangeLogFormat/rowsPerFrame`` rows of one entity (each deflated, then sealed when
/// a key is given, with its lengths and a CRC-32), and a trailer with the SHA-256 of
/// everything before it.
enum ChangeLogWriter {
    /// - Parameter includesLogicalTypes: write each column's logical type (flags bit 1), as
    ///   this library always does; false writes a file as the first version of the format did,
    ///   for the tests that read one.
    static func write(_ log: ChangeLog, key: ChangeLogKey?, includesLogicalTypes: Bool = true) throws(SyncError)
        -> Data
    {
        // Sites by number, in byte order: the file's site table.
        var sites = Set(log.since.entries.keys).union(log.vector.entries.keys)
        sites.insert(log.source)
        var lastSite = log.source  // rows come in runs of one site: one insert per run
        for entity in log.entities {
            for row in entity.rows {
                for version in row.versions where version.site != lastSite {
                    sites.insert(version.site)
                    lastSite = version.site
                }
            }
        }
        let siteList = sites.sorted(by: SiteOrder.precedes)
        let siteNumbers = Dictionary(uniqueKeysWithValues: siteList.enumerated().map { ($1, $0) })

        // Frames first: the header counts them. A frame ends at 4096 rows or once it holds
        // 4 MiB, so that big rows still make frames any reader's limits accept. Runs of 4096
        // rows are encoded and deflated several at once (a run of big rows makes several frames).
        let runs = log.entities.enumerated().flatMap { entityIndex, entity in
            stride(from: 0, to: entity.rows.count, by: ChangeLogFormat.rowsPerFrame).map { start in
                (
                    entityIndex: entityIndex,
                    rows: entity.rows[start..<min(start + ChangeLogFormat.rowsPerFrame, entity.rows.count)]
                )
            }
        }
        let deflatedRuns = try FrameParallelism.map(runs.count) { (index) throws(SyncError) in
            let run = runs[index]
            var frames: [(payloadLength: Int, deflated: [UInt8])] = []
            var start = run.rows.startIndex
            while start < run.rows.endIndex {
                let (payload, end) = framePayload(
                    entityIndex: run.entityIndex, rows: run.rows[start...], siteNumbers: siteNumbers)
                frames.append((payload.count, try Zlib.compress(payload)))
                start = end
            }
            return frames
        }
        let frames = deflatedRuns.flatMap { $0 }

        var header = ByteWriter()
        header.append(uuid: log.fileID)
        header.append(uuid: log.source)
        header.append(string: log.lineage)
        header.append(varint: siteList.count)
        for site in siteList { header.append(uuid: site) }
        for vector in [log.since, log.vector] {
            let sites = vector.sortedSites
            header.append(varint: sites.count)
            for site in sites {
                header.append(varint: siteNumbers[site]!)
                // No replica counts past the format's bound, so a vector claiming more (a peer's
                // `since` taken from anywhere) means as much at the bound, which readers accept.
                header.append(varint: min(vector[site], ChangeLogFormat.maximumCounter))
            }
        }
        header.append(varint: log.entities.count)
        for entity in log.entities {
            header.append(string: entity.name)
            header.append(string: entity.keyKind.rawValue)
            header.append(varint: entity.columns.count)
            for column in entity.columns {
                header.append(string: column.name)
                header.append(byte: column.type.changeLogCode)
                header.append(varint: column.previousNames.count)
                for name in column.previousNames { header.append(string: name) }
                if includesLogicalTypes { header.append(string: column.logicalType?.rawValue ?? "") }
            }
            header.append(varint: entity.rows.count)
        }
        header.append(varint: frames.count)

        var file = ByteWriter(capacity: frames.reduce(64 + header.bytes.count) { $0 + $1.deflated.count + 40 })
        file.append(ChangeLogFormat.magic)
        file.append(uint16: ChangeLogFormat.version)
        file.append(
            uint16: (key == nil ? 0 : ChangeLogFormat.encryptedFlag)
                | (includesLogicalTypes ? ChangeLogFormat.logicalTypesFlag : 0))
        file.append(uint32: UInt32(header.bytes.count))
        file.append(header.bytes)
        file.append(uint32: Zlib.crc32(header.bytes))
        let fileKey = key?.fileKey(log.fileID)
        let headerDigest = Array(SHA256.hash(data: header.bytes))
        if let fileKey {
            // A seal of nothing, authenticating the header: a wrong key fails here, and a
            // header altered by someone without the key fails too.
            let seal = try seal([], key: fileKey, authenticating: headerDigest)
            file.append(seal)
        }
        let stored = try FrameParallelism.map(frames.count) { (index) throws(SyncError) -> [UInt8] in
            guard let fileKey else { return frames[index].deflated }
            var context = headerDigest
            withUnsafeBytes(of: UInt32(index).littleEndian) { context.append(contentsOf: $0) }
            return try seal(frames[index].deflated, key: fileKey, authenticating: context)
        }
        for (index, stored) in stored.enumerated() {
            guard let storedLength = UInt32(exactly: stored.count),
                let payloadLength = UInt32(exactly: frames[index].payloadLength)
            else { throw .tooLarge(.rowBytes, "a row of \(frames[index].payloadLength) bytes does not fit a frame") }
            file.append(uint32: storedLength)
            file.append(uint32: payloadLength)
            file.append(uint32: Zlib.crc32(stored))
            file.append(stored)
        }
        let digest = SHA256.hash(data: file.bytes)
        file.append(ChangeLogFormat.trailerMagic)
        file.append(uint32: UInt32(frames.count))
        file.append(Array(digest))
        return Data(file.bytes)
    }

    /// AES-GCM, stored as nonce, ciphertext and tag.
    static func seal(_ bytes: [UInt8], key: SealingKey, authenticating context: [UInt8]) throws(SyncError)
        -> [UInt8]
    {
        do {
            let box = try AES.GCM.seal(bytes, using: key.symmetric, authenticating: context)
            guard let combined = box.combined else {
                throw SyncError.internalFailure(.sealing, "AES-GCM gave no combined box")
            }
            return Array(combined)
        } catch let error as SyncError {
            throw error
        } catch {
            throw .internalFailure(.sealing, "could not seal a frame: \(error)")
        }
    }

    /// One frame's rows: the entity's number, the row count, then each row: key, causal
    /// length, versions (timestamps as differences from the previous one, which deflate
    /// well), values (column number, version number, tagged value).
    /// The payload of the frame that starts at the first of `rows`, and where the next starts.
    private static func framePayload(entityIndex: Int, rows: ArraySlice<RowChange>, siteNumbers: [UUID: Int])
        -> (payload: [UInt8], end: Int)
    {
        var writer = ByteWriter(capacity: min(rows.count, ChangeLogFormat.rowsPerFrame) * 32)
        var previousTimestamp: UInt64 = 0
        var lastSite = (site: RowMerge.unknown.site, number: siteNumbers[RowMerge.unknown.site] ?? 0)
        var end = rows.startIndex
        for row in rows {
            if end - rows.startIndex == ChangeLogFormat.rowsPerFrame
                || writer.bytes.count >= ChangeLogFormat.bytesPerFrame
            {
                break
            }
            end += 1
            writer.append(value: row.key)
            writer.append(varint: row.causalLength)
            writer.append(varint: row.versions.count)
            for version in row.versions {
                writer.append(varint: version.causalLength)
                writer.append(zigzag: Int64(bitPattern: version.timestamp &- previousTimestamp))
                previousTimestamp = version.timestamp
                if version.site != lastSite.site { lastSite = (version.site, siteNumbers[version.site]!) }
                writer.append(varint: lastSite.number)
                writer.append(varint: version.sequence)
            }
            writer.append(varint: row.values.count)
            for value in row.values {
                writer.append(varint: value.column)
                writer.append(varint: value.version)
                writer.append(value: value.value)
            }
        }
        var payload = ByteWriter(capacity: writer.bytes.count + 8)
        payload.append(varint: entityIndex)
        payload.append(varint: end - rows.startIndex)
        payload.append(writer.bytes)
        return (payload.bytes, end)
    }
}
