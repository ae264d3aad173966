import Crypto
import Foundation
@_spi(SharkReplication) import SharkORM

/// Writes a change-log file (docs/sync-format.md) as its rows come: preamble, header, frames
/// of at most ``ChangeLogFormat/rowsPerFrame`` rows of one entity (each deflated, then sealed
/// when a key is given, with its lengths and a CRC-32), and a trailer with the SHA-256 of
/// everything before it.
///
/// The header counts the rows of each entity and the frames, so it is known only once every
/// row is in: frames are deflated as rows arrive (several at once) and kept in a
/// ``FrameSpool`` (a temporary file past a few megabytes), then sealed and copied after the
/// header. Memory stays a few frames' worth whatever the number of rows.
///
/// Deflation (and a full export's digest, hashed beside it) runs behind the caller: while
/// one group of frames is deflated on a queue of its own, the caller reads the store for the
/// next, so reading and compressing overlap. One group at most is in flight (see
/// ``Deflation``).
///
/// ```swift
/// let writer = ChangeLogWriter(fileID: UUID(), source: site, lineage: "notes", since: peer,
///                              vector: vector, sites: knownSites, key: nil)
/// try writer.append(rows, of: entity)
/// var output = InMemoryChangeLogOutput()
/// try writer.finish(to: &output)
/// ```
final class ChangeLogWriter {
    private let fileID: UUID
    private let source: UUID
    private let lineage: String
    private let since: VersionVector
    private let vector: VersionVector
    /// How far the writer's store forgot removals (format 2; see ``TombstoneHorizon``).
    private let horizon: VersionVector
    private let key: ChangeLogKey?
    private let includesLogicalTypes: Bool
    /// The file's site table: numbered up front, extended when a row names a site not in it.
    private var siteList: [UUID]
    private var siteNumbers: [UUID: Int]
    /// The entities with rows, in the order they came, and how many rows each has.
    private var entities: [(entity: ChangeLogEntity, rowCount: Int)] = []
    /// Rows of the current entity not yet in a run, and runs not yet deflated.
    private var current: [RowChange] = []
    private var runs: [(entityIndex: Int, rows: [RowChange])] = []
    /// The spooled frames and the digest so far, filled behind the caller.
    private let deflation = Deflation()
    /// The synced schema's hash when the file carries a ``SyncDigest`` of the rows it holds
    /// (a full export).
    private let digestSchema: [UInt8]?
    private var digesters: [Int: RowDigester] = [:]
    /// How many runs of ``ChangeLogFormat/rowsPerFrame`` rows are deflated at once.
    private static let runsAtOnce = 8

    /// - Parameters:
    ///   - sites: the sites the rows may name (numbered in the file in their byte order);
    ///     one they name beyond these is added as met.
    ///   - includesLogicalTypes: write each column's logical type (flags bit 1), as this
    ///     library always does; false writes a file as the first version of the format did,
    ///     for the tests that read one.
    init(
        fileID: UUID, source: UUID, lineage: String, since: VersionVector, vector: VersionVector,
        sites: some Sequence<UUID>, key: ChangeLogKey?, includesLogicalTypes: Bool = true,
        horizon: VersionVector = VersionVector(), digesting digestSchema: [UInt8]? = nil
    ) {
        self.digestSchema = digestSchema
        self.fileID = fileID
        self.source = source
        self.lineage = lineage
        self.since = since
        self.vector = vector
        self.horizon = horizon
        self.key = key
        self.includesLogicalTypes = includesLogicalTypes
        var known = Set(sites).union(since.entries.keys).union(vector.entries.keys).union(horizon.entries.keys)
        known.insert(source)
        siteList = known.sorted(by: SiteOrder.precedes)
        siteNumbers = Dictionary(uniqueKeysWithValues: siteList.enumerated().map { ($1, $0) })
    }

    /// Writes a whole ``ChangeLog`` in memory: crafted logs in tests, and small ones.
    static func write(_ log: ChangeLog, key: ChangeLogKey?, includesLogicalTypes: Bool = true) throws(SyncError)
        -> Data
    {
        let writer = ChangeLogWriter(
            fileID: log.fileID, source: log.source, lineage: log.lineage, since: log.since, vector: log.vector,
            sites: [], key: key, includesLogicalTypes: includesLogicalTypes, horizon: log.horizon)
        for entity in log.entities { try writer.append(entity.rows, of: entity) }
        var output = InMemoryChangeLogOutput()
        try writer.finish(to: &output)
        return Data(output.bytes)
    }

    /// Adds rows of `entity` (its rows are not read: only its name, key kind and columns).
    /// The rows of one entity come together: once another entity's come, it takes no more.
    func append(_ rows: some Collection<RowChange>, of entity: ChangeLogEntity) throws(SyncError) {
        guard !rows.isEmpty else { return }
        if entities.last?.entity.name != entity.name {
            closeRun()
            var header = entity
            header.rows = []
            entities.append((header, 0))
        }
        entities[entities.count - 1].rowCount += rows.count
        for row in rows {
            current.append(row)
            if current.count == ChangeLogFormat.rowsPerFrame {
                closeRun()
                if runs.count == Self.runsAtOnce { try deflateRuns() }
            }
        }
    }

    private func closeRun() {
        guard !current.isEmpty else { return }
        runs.append((entities.count - 1, current))
        current = []
        current.reserveCapacity(ChangeLogFormat.rowsPerFrame)
    }

    /// Hands the pending runs to the deflation queue, which deflates them several at once
    /// into the spool while the caller goes on. A frame ends at 4096 rows or once it holds
    /// 4 MiB, so that big rows still make frames any reader's limits accept (a run of big rows
    /// makes several frames). Waits first for the group handed before (and throws its error).
    private func deflateRuns() throws(SyncError) {
        guard !runs.isEmpty else { return }
        for run in runs { numberSites(of: run.rows) }
        if digestSchema != nil {
            for run in runs where digesters[run.entityIndex] == nil {
                digesters[run.entityIndex] = RowDigester(entity: entities[run.entityIndex].entity)
            }
        }
        let (runs, siteNumbers, digesters) = (self.runs, self.siteNumbers, self.digesters)
        self.runs = []
        try deflation.wait()
        deflation.start { (spool) throws(SyncError) -> (DigestSum, Int) in
            let deflated = try FrameParallelism.map(runs.count) { (index) throws(SyncError) in
                let run = runs[index]
                // The run's part of the digest, hashed beside its deflation.
                var sum = DigestSum()
                let live = digesters[run.entityIndex]?.add(run.rows, to: &sum) ?? 0
                var frames: [(payloadLength: Int, deflated: [UInt8])] = []
                var start = run.rows.startIndex
                while start < run.rows.endIndex {
                    let (payload, end) = ChangeLogWriter.framePayload(
                        entityIndex: run.entityIndex, rows: run.rows[start...], siteNumbers: siteNumbers)
                    frames.append((payload.count, try Zlib.compress(payload)))
                    start = end
                }
                return (frames, sum, live)
            }
            var total = (sum: DigestSum(), rows: 0)
            for (frames, sum, live) in deflated {
                for frame in frames { try spool.append(frame.deflated, payloadLength: frame.payloadLength) }
                total.sum.add(sum)
                total.rows += live
            }
            return total
        }
    }

    /// Numbers the sites `rows` name that the site table lacks.
    private func numberSites(of rows: [RowChange]) {
        var lastSite = source  // rows come in runs of one site: one look per run
        for row in rows {
            for version in row.versions where version.site != lastSite {
                lastSite = version.site
                if siteNumbers[lastSite] == nil {
                    siteNumbers[lastSite] = siteList.count
                    siteList.append(lastSite)
                }
            }
        }
    }

    /// Writes the file to `output`: the header, then the spooled frames (sealed on the way
    /// when a key is given), then the trailer.
    func finish(to output: inout some ChangeLogOutput) throws(SyncError) {
        closeRun()
        try deflateRuns()
        try deflation.wait()
        let spool = deflation.spool
        if let digestSchema {
            // The digest's frame, last: sealed like the rows, never in clear.
            let payload = ChangeLogDigestFrame.payload(
                entityCount: entities.count, schema: digestSchema, content: deflation.digestSum,
                rowCount: deflation.digestRows)
            try spool.append(try Zlib.compress(payload), payloadLength: payload.count)
        }
        let frameCount = spool.frames.count
        var header = ByteWriter()
        header.append(uuid: fileID)
        header.append(uuid: source)
        header.append(string: lineage)
        header.append(varint: siteList.count)
        for site in siteList { header.append(uuid: site) }
        let formatVersion = ChangeLogFormat.version(
            for: entities.lazy.map(\.entity), horizon: horizon, carriesDigest: digestSchema != nil, keyID: key?.id ?? 0)
        for vector in formatVersion >= ChangeLogFormat.horizonVersion ? [since, vector, horizon] : [since, vector] {
            let sites = vector.sortedSites
            header.append(varint: sites.count)
            for site in sites {
                header.append(varint: siteNumbers[site]!)
                // No replica counts past the format's bound, so a vector claiming more (a peer's
                // `since` taken from anywhere) means as much at the bound, which readers accept.
                header.append(varint: min(vector[site], ChangeLogFormat.maximumCounter))
            }
        }
        if formatVersion >= ChangeLogFormat.keyIDVersion { header.append(varint: UInt64(key?.id ?? 0)) }
        let carriesRules = entities.contains { $0.entity.columns.contains { $0.rule != .lastWriterWins } }
        header.append(varint: entities.count)
        for (entity, rowCount) in entities {
            header.append(string: entity.name)
            header.append(string: ChangeLogFormat.name(of: entity.keyKind))
            header.append(varint: entity.columns.count)
            for column in entity.columns {
                header.append(string: column.name)
                header.append(byte: column.type.changeLogCode)
                header.append(varint: column.previousNames.count)
                for name in column.previousNames { header.append(string: name) }
                if includesLogicalTypes { header.append(string: column.logicalType?.rawValue ?? "") }
                if carriesRules { header.append(string: column.rule.rawValue) }
            }
            header.append(varint: rowCount)
        }
        header.append(varint: frameCount)

        var file = DigestingOutput(output)
        var start = ByteWriter(capacity: 64 + header.bytes.count)
        start.append(ChangeLogFormat.magic)
        start.append(uint16: formatVersion)
        start.append(
            uint16: (key == nil ? 0 : ChangeLogFormat.encryptedFlag)
                | (includesLogicalTypes ? ChangeLogFormat.logicalTypesFlag : 0)
                | (digestSchema != nil ? ChangeLogFormat.digestFlag : 0)
                | (carriesRules ? ChangeLogFormat.mergeRulesFlag : 0))
        start.append(uint32: UInt32(header.bytes.count))
        start.append(header.bytes)
        start.append(uint32: Zlib.crc32(header.bytes))
        let fileKey = key?.fileKey(fileID)
        let headerDigest = Array(SHA256.hash(data: header.bytes))
        if let fileKey {
            // A seal of nothing, authenticating the header: a wrong key fails here, and a
            // header altered by someone without the key fails too.
            start.append(try Self.seal([], key: fileKey, authenticating: headerDigest))
        }
        try file.write(start.bytes)
        // The frames, read back from the spool and sealed several at once.
        for first in stride(from: 0, to: frameCount, by: Self.runsAtOnce) {
            let indexes = first..<min(first + Self.runsAtOnce, frameCount)
            var deflated: [[UInt8]] = []
            for index in indexes { deflated.append(try spool.frame(index)) }
            let read = deflated
            let stored = try FrameParallelism.map(indexes.count) { (offset) throws(SyncError) -> [UInt8] in
                guard let fileKey else { return read[offset] }
                var context = headerDigest
                withUnsafeBytes(of: UInt32(indexes.lowerBound + offset).littleEndian) { context.append(contentsOf: $0) }
                return try ChangeLogWriter.seal(read[offset], key: fileKey, authenticating: context)
            }
            for (offset, stored) in stored.enumerated() {
                let payloadLength = spool.frames[indexes.lowerBound + offset].payloadLength
                guard let storedLength = UInt32(exactly: stored.count),
                    let payloadLength = UInt32(exactly: payloadLength)
                else { throw .tooLarge(.rowBytes, "a row of \(payloadLength) bytes does not fit a frame") }
                var lengths = ByteWriter(capacity: 12)
                lengths.append(uint32: storedLength)
                lengths.append(uint32: payloadLength)
                lengths.append(uint32: Zlib.crc32(stored))
                try file.write(lengths.bytes)
                try file.write(stored)
            }
        }
        var trailer = ByteWriter(capacity: ChangeLogFormat.trailerLength)
        trailer.append(ChangeLogFormat.trailerMagic)
        trailer.append(uint32: UInt32(frameCount))
        trailer.append(Array(file.digest.finalize()))
        output = file.output
        try output.write(trailer.bytes)
    }

    /// AES-GCM, stored as nonce, ciphertext and tag.
    fileprivate static func seal(_ bytes: [UInt8], key: SealingKey, authenticating context: [UInt8]) throws(SyncError)
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
    fileprivate static func framePayload(entityIndex: Int, rows: ArraySlice<RowChange>, siteNumbers: [UUID: Int])
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

/// The frames a ``ChangeLogWriter`` has deflated, and the digest of their rows, filled on a
/// queue of their own while the writer's caller reads on. The hand-over is what makes sharing
/// safe: the writer starts a group only after ``wait()`` returned (so one runs at a time), and
/// reads the spool and the sums only after ``wait()`` too; the queue touches them only while
/// a group runs.
private final class Deflation: @unchecked Sendable {
    let spool = FrameSpool()
    private(set) var digestSum = DigestSum()
    private(set) var digestRows = 0
    private var failure: SyncError?
    private let queue = DispatchQueue(label: "SharkSync.ChangeLogWriter.deflation")
    private let group = DispatchGroup()

    /// Runs `work` on the queue: it spools frames and returns the digest of their rows.
    func start(_ work: @escaping @Sendable (FrameSpool) throws(SyncError) -> (DigestSum, Int)) {
        group.enter()
        queue.async { [self] in
            defer { group.leave() }
            guard failure == nil else { return }
            do throws(SyncError) {
                let (sum, rows) = try work(spool)
                digestSum.add(sum)
                digestRows += rows
            } catch {
                failure = error
            }
        }
    }

    /// Waits for the group in flight, if any; throws the first error a group met.
    func wait() throws(SyncError) {
        group.wait()
        if let failure { throw failure }
    }
}

/// An output that hashes what passes through it: the trailer's digest covers every byte
/// before it.
private struct DigestingOutput<Output: ChangeLogOutput>: ChangeLogOutput {
    var output: Output
    var digest = SHA256()

    init(_ output: Output) { self.output = output }

    mutating func write(_ bytes: some Collection<UInt8>) throws(SyncError) {
        let contiguous = Array(bytes)
        digest.update(data: contiguous)
        try output.write(contiguous)
    }
}
