import Foundation
@_spi(SharkReplication) import SharkORM

/// What a change-log file says about itself, read without its rows: its header, after the
/// checks an import makes before it applies anything (the digest over the whole file, the
/// header's checksum, the key, every frame's lengths and checksum). For a large file this
/// reads it once and holds none of it; ``ChangeLogContents`` reads every row.
///
/// ```swift
/// let header = try ChangeLogHeader(reading: URL(fileURLWithPath: "notes.sharklog"))
/// print(header.lineage, header.rowCount)
/// ```
public struct ChangeLogHeader: Sendable {
    /// The version of the file format (docs/sync-format.md).
    public var formatVersion: Int
    /// Whether the frames are sealed with a ``ChangeLogKey``.
    public var isEncrypted: Bool
    /// The ``ChangeLogKey/id`` of the key that sealed the file: 0 for a lineage's first key
    /// (and for a file that is not sealed). It sits in the plaintext header: a relay checking
    /// the envelope without the key (the sync hub) reads it too.
    public var keyID: UInt32
    /// How many compressed frames the rows were written in.
    public var frameCount: Int
    /// The file's own id.
    public var fileID: UUID
    /// The site (replica) that wrote it.
    public var source: UUID
    /// The lineage it belongs to: only stores of the same lineage import it.
    public var lineage: String
    /// What the writer assumed the receiver had seen: the file holds only changes beyond it.
    public var since: VersionVector
    /// What the writer had seen when it wrote the file.
    public var vector: VersionVector
    /// How far the writer's store had forgotten removals (empty when it never forgot any):
    /// a store whose vector does not reach it must catch up from a full export first.
    public var horizon: VersionVector
    /// Each entity the file has rows of, and how many.
    public var entities: [(name: String, rowCount: Int)]
    /// Whether the file carries its writer's ``SyncDigest`` (flags bit 2): a full export.
    public var carriesDigest: Bool
    /// The writer's digest of its whole synced content when the file carries one and was
    /// read with its key (or is not sealed); nil otherwise. Read from the last frame alone.
    public var digest: SyncDigest?

    /// The rows of all entities.
    public var rowCount: Int { entities.reduce(0) { $0 + $1.rowCount } }

    /// Reads and checks the file at `url`; `key` when it is encrypted. A file that cannot be
    /// read twice (a pipe) is copied to a temporary file first.
    ///
    /// ```swift
    /// let header = try ChangeLogHeader(reading: URL(fileURLWithPath: "sealed.sharklog"), key: key)
    /// ```
    public init(reading url: URL, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits())
        throws(SyncError)
    {
        let opened = try ChangeLogReader.open(try FileChangeLogInput(url), key: key, limits: limits)
        self.init(opened)
        digest = try opened.digestFrame()
    }

    /// Reads and checks `data`, as `init(reading:key:limits:)` with a URL does a file.
    ///
    /// ```swift
    /// let header = try ChangeLogHeader(reading: file)
    /// ```
    public init(reading data: Data, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits())
        throws(SyncError)
    {
        let opened = try ChangeLogReader.open(InMemoryChangeLogInput(data: data), key: key, limits: limits)
        self.init(opened)
        digest = try opened.digestFrame()
    }

    /// Checks the envelope of a file without its key, as a relay that never holds the key
    /// does (the sync hub): the preamble, the header and its checksum, the trailer's digest
    /// over the whole file, every frame's lengths and checksum. The seals are not opened, so
    /// this proves the file arrived as its writer finished it, not who wrote it.
    package init(checkingEnvelopeOf input: some ChangeLogInput, limits: ChangeLogLimits = ChangeLogLimits())
        throws(SyncError)
    {
        self.init(try ChangeLogReader.open(input, key: nil, limits: limits, envelopeOnly: true))
    }

    /// Whether the file at `url` says its frames are sealed, read from its preamble alone
    /// (false for a file too short to say, or that cannot be opened: reading it will tell
    /// why). What decides whether to ask for a key.
    ///
    /// ```swift
    /// let url = URL(fileURLWithPath: "notes.sharklog")
    /// let needsKey = ChangeLogHeader.isEncrypted(url)
    /// ```
    public static func isEncrypted(_ url: URL) -> Bool {
        guard let input = try? FileChangeLogInput(url), input.length >= ChangeLogFormat.preambleLength,
            let preamble = try? input.bytes(at: 0, count: ChangeLogFormat.preambleLength)
        else { return false }
        return preamble[10] & UInt8(ChangeLogFormat.encryptedFlag) != 0
    }

    private init(_ opened: OpenedChangeLog) {
        formatVersion = opened.formatVersion
        isEncrypted = opened.flags & ChangeLogFormat.encryptedFlag != 0
        keyID = opened.header.keyID
        frameCount = opened.frames.count
        fileID = opened.header.fileID
        source = opened.header.source
        lineage = opened.header.lineage
        since = opened.header.since
        vector = opened.header.vector
        horizon = opened.header.horizon
        entities = zip(opened.header.entities, opened.expectedRows).map { ($0.name, $1) }
        carriesDigest = opened.partial.carriesDigest
    }
}
