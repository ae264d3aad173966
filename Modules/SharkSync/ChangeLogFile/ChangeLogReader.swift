import Crypto
import Foundation
@_spi(SharkReplication) import SharkORM

/// Reads and checks a change-log file completely before anything is applied: the preamble,
/// the header and its CRC, the trailer's digest over the whole file, the key, then every
/// frame (lengths against the limits, CRC, seal, inflated length) and every row's structure.
/// Anything off is a ``SyncError``; nothing is ever read past the end of the bytes.
enum ChangeLogReader {
    static func read(_ data: Data, key: ChangeLogKey?, limits: ChangeLogLimits) throws(SyncError) -> ChangeLog {
        let bytes = [UInt8](data)
        guard bytes.count >= ChangeLogFormat.magic.count, Array(bytes.prefix(8)) == ChangeLogFormat.magic else {
            throw .notAChangeLog
        }
        var reader = ByteReader(bytes, context: "preamble")
        _ = try reader.bytes(8)
        let version = try reader.uint16()
        guard version <= ChangeLogFormat.version, version > 0 else {
            throw .unsupportedFormatVersion(Int(version))
        }
        let flags = try reader.uint16()
        guard flags & ~ChangeLogFormat.knownFlags == 0 else { throw .corrupt(.unknownFlags, "unknown flags \(flags)") }
        let encrypted = flags & ChangeLogFormat.encryptedFlag != 0
        let headerLength = Int(try reader.uint32())
        guard headerLength <= limits.maximumHeaderBytes else {
            throw .tooLarge(
                .headerBytes, "a header of \(headerLength) bytes (the limit is \(limits.maximumHeaderBytes))")
        }
        let headerBytes = Array(try reader.bytes(headerLength))
        let headerCRC = try reader.uint32()
        guard headerCRC == Zlib.crc32(headerBytes) else {
            throw .corrupt(.checksumMismatch, "the header's checksum does not match")
        }

        // The trailer: the digest covers everything before it, so a truncated or altered
        // file stops here, before any frame is inflated.
        guard bytes.count - reader.offset >= ChangeLogFormat.trailerLength else {
            throw .corrupt(.truncated, "the file ends before its trailer")
        }
        let trailerStart = bytes.count - ChangeLogFormat.trailerLength
        var trailer = ByteReader(Array(bytes[trailerStart...]), context: "trailer")
        guard Array(try trailer.bytes(8)) == ChangeLogFormat.trailerMagic else {
            throw .corrupt(.truncated, "the trailer is missing (the file is truncated)")
        }
        let trailerFrameCount = Int(try trailer.uint32())
        let digest = Array(try trailer.bytes(32))
        guard Array(SHA256.hash(data: bytes[..<trailerStart])) == digest else {
            throw .corrupt(.digestMismatch, "the file's digest does not match its contents")
        }

        var log = try header(headerBytes, logicalTypes: flags & ChangeLogFormat.logicalTypesFlag != 0)
        guard log.frameCount == trailerFrameCount else {
            throw .corrupt(
                .frameCountMismatch, "the header counts \(log.frameCount) frames, the trailer \(trailerFrameCount)")
        }

        let headerDigest = Array(SHA256.hash(data: headerBytes))
        var fileKey: SealingKey?
        switch (encrypted, key) {
        case (true, nil): throw .keyMismatch(.keyRequired, "the change log is encrypted: give its key")
        case (false, .some): throw .keyMismatch(.keyNotExpected, "the change log is not encrypted, yet a key was given")
        case (true, let key?):
            let derived = key.fileKey(log.changeLog.fileID)
            let seal = Array(try reader.bytes(12 + 16))
            _ = try open(seal, key: derived, authenticating: headerDigest)
            fileKey = derived
        case (false, nil): break
        }

        // Every frame's lengths and checksum first, in file order; then the frames opened,
        // inflated and parsed, several at once; then their rows in frame order.
        var frames: [(stored: ArraySlice<UInt8>, inflatedLength: Int)] = []
        var inflatedTotal = 0
        for index in 0..<log.frameCount {
            guard reader.offset < trailerStart else { throw .corrupt(.truncated, "frame \(index) is missing") }
            let storedLength = Int(try reader.uint32())
            let inflatedLength = Int(try reader.uint32())
            let crc = try reader.uint32()
            guard inflatedLength <= limits.maximumFrameBytes else {
                throw .tooLarge(
                    .frameBytes,
                    "frame \(index) inflates to \(inflatedLength) bytes (the limit is \(limits.maximumFrameBytes))")
            }
            inflatedTotal += inflatedLength
            guard inflatedTotal <= limits.maximumInflatedBytes else {
                throw .tooLarge(.inflatedBytes, "the frames inflate to more than \(limits.maximumInflatedBytes) bytes")
            }
            guard storedLength <= trailerStart - reader.offset else {
                throw .corrupt(.truncated, "frame \(index) ends early")
            }
            let stored = try reader.bytes(storedLength)
            guard Zlib.crc32(Array(stored)) == crc else {
                throw .corrupt(.checksumMismatch, "frame \(index): its checksum does not match")
            }
            frames.append((stored, inflatedLength))
        }
        let (headerRead, checkedFrames, frameKey) = (log, frames, fileKey)
        let parsed = try FrameParallelism.map(frames.count) { (index) throws(SyncError) in
            var compressed = checkedFrames[index].stored
            if let frameKey {
                var context = headerDigest
                withUnsafeBytes(of: UInt32(index).littleEndian) { context.append(contentsOf: $0) }
                compressed = ArraySlice(try open(Array(compressed), key: frameKey, authenticating: context))
            }
            let payload = try Zlib.decompress(
                compressed, expectedLength: checkedFrames[index].inflatedLength, context: "frame \(index)")
            return try headerRead.parseFrame(payload, index: index)
        }
        for (index, frame) in parsed.enumerated() { try log.append(frame, index: index) }
        guard reader.offset == trailerStart else { throw .corrupt(.trailingBytes, "bytes follow the last frame") }
        try log.checkCounts()
        return log.changeLog
    }

    private static func open(_ sealed: [UInt8], key: SealingKey, authenticating context: [UInt8]) throws(SyncError)
        -> [UInt8]
    {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return Array(try AES.GCM.open(box, using: key.symmetric, authenticating: context))
        } catch {
            throw .wrongKey
        }
    }

    /// The log the header describes, frames still to read.
    private static func header(_ bytes: [UInt8], logicalTypes: Bool) throws(SyncError) -> PartialLog {
        var reader = ByteReader(bytes, context: "header")
        let fileID = try reader.uuid()
        let source = try reader.uuid()
        let lineage = try reader.string()
        let siteCount = try reader.count(limit: reader.remaining / 16)
        var sites: [UUID] = []
        for _ in 0..<siteCount { sites.append(try reader.uuid()) }
        func site(_ number: Int) throws(SyncError) -> UUID {
            guard number < sites.count else { throw reader.corrupt("site number \(number) is not in the site table") }
            return sites[number]
        }
        var vectors: [VersionVector] = []
        for _ in 0..<2 {
            var vector = VersionVector()
            let count = try reader.count(limit: sites.count)
            for _ in 0..<count {
                let number = try reader.count(limit: Int.max)
                let sequence = try reader.varint()
                guard sequence <= ChangeLogFormat.maximumCounter else {
                    throw reader.corrupt("a sequence number is beyond the range a replica counts to")
                }
                vector[try site(number)] = sequence
            }
            vectors.append(vector)
        }
        let entityCount = try reader.count(limit: reader.remaining)
        var entities: [ChangeLogEntity] = []
        var expectedRows: [Int] = []
        for _ in 0..<entityCount {
            let name = try reader.string()
            guard !entities.contains(where: { $0.name == name }) else {
                throw reader.corrupt("the entity \(name) is listed twice")
            }
            guard let keyKind = KeyKind(rawValue: try reader.string()), keyKind != .autoIncrement else {
                throw reader.corrupt("entity \(name) has a key kind sync does not use")
            }
            let columnCount = try reader.count(limit: reader.remaining)
            var columns: [ChangeLogColumn] = []
            for _ in 0..<columnCount {
                let column = try reader.string()
                let type = try StorageType(changeLogCode: reader.byte())
                var previousNames: [String] = []
                for _ in 0..<(try reader.count(limit: reader.remaining)) { previousNames.append(try reader.string()) }
                // A name this library does not know (a later one's) reads as none: values
                // still read by their storage class.
                let logicalType = logicalTypes ? LogicalType(rawValue: try reader.string()) : nil
                columns.append(
                    ChangeLogColumn(name: column, type: type, previousNames: previousNames, logicalType: logicalType))
            }
            expectedRows.append(try reader.count(limit: Int(Int32.max)))
            entities.append(ChangeLogEntity(name: name, keyKind: keyKind, columns: columns, rows: []))
        }
        let frameCount = try reader.count(limit: Int(Int32.max))
        guard reader.isAtEnd else { throw reader.corrupt("bytes follow the header's fields", kind: .trailingBytes) }
        let log = ChangeLog(
            fileID: fileID, source: source, lineage: lineage, since: vectors[0], vector: vectors[1], entities: entities)
        return PartialLog(changeLog: log, sites: sites, expectedRows: expectedRows, frameCount: frameCount)
    }
}

/// A log whose header is read, its frames still to read: each parsed on its own (several at
/// once), then appended in order.
private struct PartialLog {
    var changeLog: ChangeLog
    let sites: [UUID]
    let expectedRows: [Int]
    let frameCount: Int

    /// The rows of one frame, checked against the header, and the entity they belong to.
    func parseFrame(_ payload: [UInt8], index: Int) throws(SyncError) -> (entityIndex: Int, rows: [RowChange]) {
        var reader = ByteReader(payload, context: "frame \(index)")
        let entityIndex = try reader.count(limit: changeLog.entities.count - 1)
        let name = changeLog.entities[entityIndex].name
        let keyKind = changeLog.entities[entityIndex].keyKind
        let columnCount = changeLog.entities[entityIndex].columns.count
        // At most what the header counts for the entity; `append` checks the sum.
        let rowCount = try reader.count(limit: expectedRows[entityIndex])
        var rows: [RowChange] = []
        rows.reserveCapacity(min(rowCount, reader.remaining / 8))  // a row takes 8 bytes at least
        var previousTimestamp: UInt64 = 0
        // Which columns the current row named: one buffer for the frame, cleared row by row.
        var named = [Bool](repeating: false, count: columnCount)
        // The rows one transaction wrote carry one version, the same: they share one array.
        var lastVersions: [ColumnVersion] = []
        // The values of every row of the frame, in order, and where each row's are.
        var frameValues: [ColumnChange] = []
        let valueBound = reader.remaining / 3  // a value takes 3 bytes at least
        frameValues.reserveCapacity(rowCount <= valueBound / max(columnCount, 1) ? rowCount * columnCount : valueBound)
        var valueRanges: [Range<Int>] = []
        valueRanges.reserveCapacity(rows.capacity)
        for _ in 0..<rowCount {
            let key = try reader.value()
            switch (keyKind, key) {
            case (.uuid, .blob(let bytes)) where bytes.count == 16: break
            case (.string, .text): break
            default: throw reader.corrupt("a key of \(name) is not a \(keyKind.rawValue)")
            }
            let causalLength = try reader.varint()
            guard causalLength > 0 else { throw reader.corrupt("a row has causal length 0") }
            guard causalLength <= ChangeLogFormat.maximumCounter else {
                throw reader.corrupt("a causal length is beyond the range a replica counts to")
            }
            let versionCount = try reader.count(limit: columnCount + 1)
            guard versionCount > 0 else { throw reader.corrupt("a row has no version") }
            var versions: [ColumnVersion] = []
            for index in 0..<versionCount {
                let versionLength = try reader.varint()
                guard versionLength <= causalLength else {
                    throw reader.corrupt("a version's causal length is beyond its row's")
                }
                previousTimestamp = previousTimestamp &+ UInt64(bitPattern: try reader.zigzag())
                guard previousTimestamp <= HybridLogicalClock.maximum else {
                    throw reader.corrupt("a timestamp is beyond the clock's range")
                }
                let number = try reader.count(limit: sites.count - 1)
                let sequence = try reader.varint()
                guard sequence <= ChangeLogFormat.maximumCounter else {
                    throw reader.corrupt("a sequence number is beyond the range a replica counts to")
                }
                let version = ColumnVersion(
                    causalLength: versionLength, timestamp: previousTimestamp, site: sites[number], sequence: sequence)
                if versionCount == 1, lastVersions.count == 1, lastVersions[0] == version {
                    versions = lastVersions  // no allocation: the previous row's array
                    break
                }
                if index == 0 { versions.reserveCapacity(versionCount) }
                versions.append(version)
            }
            lastVersions = versions
            let valueCount = try reader.count(limit: columnCount)
            let first = frameValues.count
            for _ in 0..<valueCount {
                let column = try reader.count(limit: columnCount - 1)
                guard !named[column] else { throw reader.corrupt("a row names a column twice") }
                named[column] = true
                let version = try reader.count(limit: versions.count - 1)
                frameValues.append(ColumnChange(column: column, version: version, value: try reader.value()))
            }
            for change in frameValues[first...] { named[change.column] = false }
            let row = RowChange(key: key, causalLength: causalLength, versions: versions, values: [])
            if row.isRemoval && valueCount > 0 { throw reader.corrupt("a removed row carries values") }
            rows.append(row)
            valueRanges.append(first..<frameValues.count)
        }
        guard reader.isAtEnd else { throw reader.corrupt("bytes follow the frame's rows", kind: .trailingBytes) }
        // Each row's values are a slice of the frame's: one allocation for them all.
        let shared = frameValues
        for index in rows.indices { rows[index].values = shared[valueRanges[index]] }
        return (entityIndex, rows)
    }

    /// Adds a parsed frame's rows to its entity's, refusing more than the header counts.
    mutating func append(_ frame: (entityIndex: Int, rows: [RowChange]), index: Int) throws(SyncError) {
        let read = changeLog.entities[frame.entityIndex].rows.count
        guard frame.rows.count <= expectedRows[frame.entityIndex] - read else {
            throw .corrupt(
                .rowCountMismatch,
                "frame \(index): \(changeLog.entities[frame.entityIndex].name) has more rows than the header counts")
        }
        if read == 0 {
            changeLog.entities[frame.entityIndex].rows = frame.rows  // the frame's array, not a copy
        } else {
            changeLog.entities[frame.entityIndex].rows.append(contentsOf: frame.rows)
        }
    }

    func checkCounts() throws(SyncError) {
        for (index, entity) in changeLog.entities.enumerated() where entity.rows.count != expectedRows[index] {
            throw .corrupt(
                .rowCountMismatch,
                "\(entity.name): the header counts \(expectedRows[index]) rows, the frames \(entity.rows.count)")
        }
    }
}
