import Crypto
import Foundation
@_spi(SharkReplication) import SharkORM

/// Reads and checks a change-log file before anything is applied: the preamble, the header
/// and its CRC, the trailer's digest over the whole file, the key, then every frame's lengths
/// (against the limits) and CRC. Anything off is a ``SyncError``; nothing is ever read past
/// the end of the bytes. The frames are then opened, inflated and parsed a few at a time as
/// the caller takes their rows (``OpenedChangeLog/forEachFrame(_:)``), each frame's
/// structure checked as it comes: a file read from disk is never held whole.
enum ChangeLogReader {
    /// Reads a whole file into memory: for tests, `shark inspect` and small logs.
    static func read(_ data: Data, key: ChangeLogKey?, limits: ChangeLogLimits) throws(SyncError) -> ChangeLog {
        let opened = try open(InMemoryChangeLogInput(data: data), key: key, limits: limits)
        var log = opened.header
        do {
            log.digest = try opened.forEachFrame { (entityIndex, rows) in
                if log.entities[entityIndex].rows.isEmpty {
                    log.entities[entityIndex].rows = rows  // the frame's array, not a copy
                } else {
                    log.entities[entityIndex].rows.append(contentsOf: rows)
                }
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw .internalFailure(.frameScheduling, "reading the frames failed: \(error)")
        }
        return log
    }

    /// The size of the pieces the digest is computed over.
    private static let digestPiece = 1 << 20

    /// Checks everything but the frames' contents, and returns the file ready to read.
    /// `envelopeOnly`: a sealed file is checked without its key (everything but the seals:
    /// what a relay that never holds the key can check), and its frames cannot be read.
    static func open(
        _ input: some ChangeLogInput, key: ChangeLogKey?, limits: ChangeLogLimits, envelopeOnly: Bool = false
    ) throws(SyncError) -> OpenedChangeLog {
        let length = input.length
        guard length >= ChangeLogFormat.preambleLength,
            try input.bytes(at: 0, count: ChangeLogFormat.magic.count) == ChangeLogFormat.magic
        else {
            throw .notAChangeLog
        }
        var reader = ByteReader(try input.bytes(at: 0, count: ChangeLogFormat.preambleLength), context: "preamble")
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
        var offset = ChangeLogFormat.preambleLength
        guard length - offset >= headerLength + 4 else { throw .corrupt(.truncated, "the file ends inside its header") }
        let headerBytes = try input.bytes(at: offset, count: headerLength)
        var crcReader = ByteReader(try input.bytes(at: offset + headerLength, count: 4), context: "header")
        offset += headerLength + 4
        guard try crcReader.uint32() == Zlib.crc32(headerBytes) else {
            throw .corrupt(.checksumMismatch, "the header's checksum does not match")
        }

        // The trailer: the digest covers everything before it, so a truncated or altered
        // file stops here, before any frame is inflated.
        guard length - offset >= ChangeLogFormat.trailerLength else {
            throw .corrupt(.truncated, "the file ends before its trailer")
        }
        let trailerStart = length - ChangeLogFormat.trailerLength
        var trailer = ByteReader(
            try input.bytes(at: trailerStart, count: ChangeLogFormat.trailerLength), context: "trailer")
        guard Array(try trailer.bytes(8)) == ChangeLogFormat.trailerMagic else {
            throw .corrupt(.truncated, "the trailer is missing (the file is truncated)")
        }
        let trailerFrameCount = Int(try trailer.uint32())
        let digest = Array(try trailer.bytes(32))
        var hash = SHA256()
        for piece in stride(from: 0, to: trailerStart, by: digestPiece) {
            hash.update(data: try input.bytes(at: piece, count: min(digestPiece, trailerStart - piece)))
        }
        guard Array(hash.finalize()) == digest else {
            throw .corrupt(.digestMismatch, "the file's digest does not match its contents")
        }

        let carriesDigest = flags & ChangeLogFormat.digestFlag != 0
        let carriesRules = flags & ChangeLogFormat.mergeRulesFlag != 0
        guard (!carriesDigest && !carriesRules) || version >= ChangeLogFormat.digestVersion else {
            throw .corrupt(.unknownFlags, "flags \(flags) in a file of version \(version)")
        }
        var partial = try header(
            headerBytes, version: version, logicalTypes: flags & ChangeLogFormat.logicalTypesFlag != 0,
            rules: carriesRules)
        partial.carriesDigest = carriesDigest
        guard !carriesDigest || partial.frameCount > 0 else {
            throw .corrupt(.frameCountMismatch, "the file says it carries a digest, yet has no frame")
        }
        guard partial.frameCount == trailerFrameCount else {
            throw .corrupt(
                .frameCountMismatch, "the header counts \(partial.frameCount) frames, the trailer \(trailerFrameCount)")
        }

        guard encrypted || partial.changeLog.keyID == 0 else {
            throw .corrupt(.malformedContent, "a file that is not sealed names sealing key \(partial.changeLog.keyID)")
        }
        let headerDigest = Array(SHA256.hash(data: headerBytes))
        var fileKey: SealingKey?
        switch (encrypted, key) {
        case (true, nil) where envelopeOnly:
            // The seal authenticates the header with the file key; without it, only its
            // length is checked, as the frames' checksums are below.
            guard trailerStart - offset >= 12 + 16 else { throw .corrupt(.truncated, "the file ends early") }
            offset += 12 + 16
        case (true, nil): throw .keyMismatch(.keyRequired, "the change log is encrypted: give its key")
        case (false, .some): throw .keyMismatch(.keyNotExpected, "the change log is not encrypted, yet a key was given")
        case (true, let given?):
            guard let key = given.opening(keyID: partial.changeLog.keyID) else {
                let known = ([given.id] + given.retiredIDs).sorted().map(String.init).joined(separator: ", ")
                throw .keyMismatch(
                    .unknownKeyID,
                    "the change log is sealed with key \(partial.changeLog.keyID); the key given opens key \(known) only: give "
                        + "this device the lineage's key \(partial.changeLog.keyID)")
            }
            let derived = key.fileKey(partial.changeLog.fileID)
            guard trailerStart - offset >= 12 + 16 else { throw .corrupt(.truncated, "the file ends early") }
            _ = try open(try input.bytes(at: offset, count: 12 + 16), key: derived, authenticating: headerDigest)
            offset += 12 + 16
            fileKey = derived
        case (false, nil): break
        }

        // Every frame's lengths and checksum, in file order, before any is opened.
        var frames: [OpenedChangeLog.Frame] = []
        var inflatedTotal = 0
        for index in 0..<partial.frameCount {
            guard offset < trailerStart else { throw .corrupt(.truncated, "frame \(index) is missing") }
            guard trailerStart - offset >= 12 else { throw .corrupt(.truncated, "frame \(index) ends early") }
            var lengths = ByteReader(try input.bytes(at: offset, count: 12), context: "frame \(index)")
            offset += 12
            let storedLength = Int(try lengths.uint32())
            let inflatedLength = Int(try lengths.uint32())
            let crc = try lengths.uint32()
            guard inflatedLength <= limits.maximumFrameBytes else {
                throw .tooLarge(
                    .frameBytes,
                    "frame \(index) inflates to \(inflatedLength) bytes (the limit is \(limits.maximumFrameBytes))")
            }
            inflatedTotal += inflatedLength
            guard inflatedTotal <= limits.maximumInflatedBytes else {
                throw .tooLarge(.inflatedBytes, "the frames inflate to more than \(limits.maximumInflatedBytes) bytes")
            }
            guard storedLength <= trailerStart - offset else {
                throw .corrupt(.truncated, "frame \(index) ends early")
            }
            guard Zlib.crc32(try input.bytes(at: offset, count: storedLength)) == crc else {
                throw .corrupt(.checksumMismatch, "frame \(index): its checksum does not match")
            }
            frames.append(
                OpenedChangeLog.Frame(offset: offset, storedLength: storedLength, inflatedLength: inflatedLength))
            offset += storedLength
        }
        guard offset == trailerStart else { throw .corrupt(.trailingBytes, "bytes follow the last frame") }
        return OpenedChangeLog(
            input: input, partial: partial, frames: frames, fileKey: fileKey, headerDigest: headerDigest,
            formatVersion: Int(version), flags: flags)
    }

    fileprivate static func open(_ sealed: [UInt8], key: SealingKey, authenticating context: [UInt8]) throws(SyncError)
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
    fileprivate static func header(_ bytes: [UInt8], version: UInt16, logicalTypes: Bool, rules: Bool)
        throws(SyncError) -> PartialLog
    {
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
        for _ in 0..<(version >= ChangeLogFormat.horizonVersion ? 3 : 2) {
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
        var keyID: UInt32 = 0
        if version >= ChangeLogFormat.keyIDVersion {
            guard let id = UInt32(exactly: try reader.varint()) else {
                throw reader.corrupt("the sealing key's id is beyond 32 bits")
            }
            keyID = id
        }
        let entityCount = try reader.count(limit: reader.remaining)
        var entities: [ChangeLogEntity] = []
        var expectedRows: [Int] = []
        for _ in 0..<entityCount {
            let name = try reader.string()
            let entityName = name
            guard !entities.contains(where: { $0.name == name }) else {
                throw reader.corrupt("the entity \(name) is listed twice")
            }
            guard let keyKind = ChangeLogFormat.keyKind(named: try reader.string(), version: version) else {
                throw reader.corrupt("entity \(name) has a key kind format version \(version) does not have")
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
                var rule = MergeRule.lastWriterWins
                if rules {
                    let name = try reader.string()
                    // A rule this library does not know cannot be merged by another.
                    guard let known = MergeRule(rawValue: name) else {
                        throw reader.corrupt(
                            "column \(column) of \(entityName) has a merge rule this library does not know: \(name)")
                    }
                    guard known != .counter || type == .integer else {
                        throw reader.corrupt("the counter \(column) of \(entityName) is not an integer column")
                    }
                    rule = known
                }
                columns.append(
                    ChangeLogColumn(
                        name: column, type: type, previousNames: previousNames, logicalType: logicalType, rule: rule))
            }
            expectedRows.append(try reader.count(limit: Int(Int32.max)))
            entities.append(ChangeLogEntity(name: name, keyKind: keyKind, columns: columns, rows: []))
        }
        let frameCount = try reader.count(limit: Int(Int32.max))
        guard reader.isAtEnd else { throw reader.corrupt("bytes follow the header's fields", kind: .trailingBytes) }
        var log = ChangeLog(
            fileID: fileID, source: source, lineage: lineage, since: vectors[0], vector: vectors[1], entities: entities,
            horizon: vectors.count > 2 ? vectors[2] : VersionVector())
        log.keyID = keyID
        return PartialLog(changeLog: log, sites: sites, expectedRows: expectedRows, frameCount: frameCount)
    }
}

/// A log whose header is read, its frames still to read: each parsed on its own (several at
/// once), then appended in order.
struct PartialLog {
    var changeLog: ChangeLog
    let sites: [UUID]
    let expectedRows: [Int]
    let frameCount: Int
    /// Whether the last frame is the sender's digest (flags bit 2).
    var carriesDigest = false

    /// What one frame holds: rows of an entity, or (the last frame, flags bit 2) the sender's
    /// digest.
    enum Frame {
        case rows(entityIndex: Int, rows: [RowChange])
        case digest(SyncDigest)
    }

    /// One frame, checked against the header.
    func parseFrame(_ payload: [UInt8], index: Int) throws(SyncError) -> Frame {
        var reader = ByteReader(payload, context: "frame \(index)")
        let isDigestFrame = carriesDigest && index == frameCount - 1
        let entityIndex = try reader.count(limit: changeLog.entities.count - (isDigestFrame ? 0 : 1))
        if isDigestFrame {
            guard entityIndex == changeLog.entities.count else {
                throw reader.corrupt("the last frame holds rows where the file says its digest is")
            }
            return .digest(try ChangeLogDigestFrame.read(&reader, vector: changeLog.vector))
        }
        return .rows(entityIndex: entityIndex, rows: try parseRows(&reader, entityIndex: entityIndex))
    }

    /// The rows of a frame after its entity position.
    private func parseRows(_ reader: inout ByteReader, entityIndex: Int) throws(SyncError) -> [RowChange] {
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
            case (.string, .text), (.autoIncrement, .integer): break
            default: throw reader.corrupt("a key of \(name) is not a \(ChangeLogFormat.name(of: keyKind))")
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
        return rows
    }
}

/// A change-log file whose preamble, header, digest, key and frame checksums are checked
/// (``ChangeLogReader/open(_:key:limits:)``), its rows still to read frame by frame.
struct OpenedChangeLog {
    struct Frame {
        var offset: Int
        var storedLength: Int
        var inflatedLength: Int
    }

    let input: any ChangeLogInput
    let partial: PartialLog
    let frames: [Frame]
    let fileKey: SealingKey?
    let headerDigest: [UInt8]
    let formatVersion: Int
    let flags: UInt16

    /// The log the header describes: its entities without rows.
    var header: ChangeLog { partial.changeLog }
    /// How many rows the header counts for each entity.
    var expectedRows: [Int] { partial.expectedRows }

    /// How many frames are opened, inflated and parsed at once.
    private static let framesAtOnce = 8

    /// Hands each frame's rows to `body` in file order, with the index of their entity: the
    /// frames opened, inflated and parsed a few at once, each checked against the header.
    /// Throws, after the last frame, when an entity's rows do not add up to the header's count.
    /// Returns the sender's digest when the file carries one.
    @discardableResult
    func forEachFrame<Failure: Error>(_ body: (_ entityIndex: Int, _ rows: [RowChange]) throws(Failure) -> Void)
        throws -> SyncDigest?
    {
        // A sealed file checked without its key (envelopeOnly) has no rows to give.
        guard flags & ChangeLogFormat.encryptedFlag == 0 || fileKey != nil else {
            throw SyncError.keyMismatch(.keyRequired, "the change log is encrypted: give its key")
        }
        var digest: SyncDigest?
        var read = [Int](repeating: 0, count: header.entities.count)
        let (partial, fileKey, headerDigest) = (self.partial, self.fileKey, self.headerDigest)
        for first in stride(from: 0, to: frames.count, by: Self.framesAtOnce) {
            let indexes = first..<min(first + Self.framesAtOnce, frames.count)
            var stored: [[UInt8]] = []
            for index in indexes {
                stored.append(try input.bytes(at: frames[index].offset, count: frames[index].storedLength))
            }
            let (loaded, frames) = (stored, self.frames)
            let parsed = try FrameParallelism.map(indexes.count) { (position) throws(SyncError) in
                let index = indexes.lowerBound + position
                var compressed = ArraySlice(loaded[position])
                if let fileKey {
                    var context = headerDigest
                    withUnsafeBytes(of: UInt32(index).littleEndian) { context.append(contentsOf: $0) }
                    compressed = ArraySlice(
                        try ChangeLogReader.open(Array(compressed), key: fileKey, authenticating: context))
                }
                let payload = try Zlib.decompress(
                    compressed, expectedLength: frames[index].inflatedLength, context: "frame \(index)")
                return try partial.parseFrame(payload, index: index)
            }
            for (position, frame) in parsed.enumerated() {
                guard case .rows(let entity, let rows) = frame else {
                    if case .digest(let found) = frame { digest = found }
                    continue
                }
                guard rows.count <= expectedRows[entity] - read[entity] else {
                    throw SyncError.corrupt(
                        .rowCountMismatch,
                        "frame \(indexes.lowerBound + position): \(header.entities[entity].name) has more rows than the header counts"
                    )
                }
                read[entity] += rows.count
                try body(entity, rows)
            }
        }
        for (index, entity) in header.entities.enumerated() where read[index] != expectedRows[index] {
            throw SyncError.corrupt(
                .rowCountMismatch,
                "\(entity.name): the header counts \(expectedRows[index]) rows, the frames \(read[index])")
        }
        return digest
    }

    /// The sender's digest alone, from the last frame, without reading the rows: nil when
    /// the file carries none. Needs the key of a sealed file.
    func digestFrame() throws(SyncError) -> SyncDigest? {
        guard partial.carriesDigest, let last = frames.last else { return nil }
        guard flags & ChangeLogFormat.encryptedFlag == 0 || fileKey != nil else {
            throw .keyMismatch(.keyRequired, "the change log is encrypted: give its key")
        }
        var stored = try input.bytes(at: last.offset, count: last.storedLength)
        if let fileKey {
            var context = headerDigest
            withUnsafeBytes(of: UInt32(frames.count - 1).littleEndian) { context.append(contentsOf: $0) }
            stored = try ChangeLogReader.open(stored, key: fileKey, authenticating: context)
        }
        let payload = try Zlib.decompress(
            ArraySlice(stored), expectedLength: last.inflatedLength, context: "frame \(frames.count - 1)")
        guard case .digest(let digest) = try partial.parseFrame(payload, index: frames.count - 1) else { return nil }
        return digest
    }
}
