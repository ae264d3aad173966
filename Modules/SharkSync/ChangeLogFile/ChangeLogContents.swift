import Foundation
@_spi(SharkReplication) import SharkORM

/// What a change-log file holds, read and checked whole without a store: for showing a file
/// before importing it (`shark inspect`) and for checking one (`shark verify`). Reading it
/// checks exactly what an import checks, and throws the same ``SyncError``s.
///
/// ```swift
/// let contents = try ChangeLogContents(reading: file)
/// print(contents.lineage, contents.rowCount)
/// for entity in contents.entities {
///     for row in entity.rows where row.isRemoval { print("removed", entity.name, row.key) }
/// }
/// ```
public struct ChangeLogContents: Sendable {
    /// The version of the file format (docs/sync-format.md).
    public var formatVersion: Int
    /// Whether the frames are sealed with a ``ChangeLogKey``.
    public var isEncrypted: Bool
    /// The ``ChangeLogKey/id`` of the key that sealed the file (0 for a lineage's first key,
    /// and for a file that is not sealed).
    public var keyID: UInt32
    /// Whether the file names each column's logical type (flags bit 1; files this library
    /// wrote before it do not), so that its values show as dates, UUIDs, decimals.
    public var carriesLogicalTypes: Bool
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
    /// The changed rows, by entity.
    public var entities: [Entity]
    /// The writer's digest of its whole synced content (flags bit 2: only full exports carry
    /// one).
    public var digest: SyncDigest?

    /// The changed rows of all entities.
    public var rowCount: Int { entities.reduce(0) { $0 + $1.rows.count } }

    /// Reads and checks `data`; `key` when the file is encrypted.
    ///
    /// ```swift
    /// let contents = try ChangeLogContents(reading: file, key: key)
    /// ```
    public init(reading data: Data, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits())
        throws(SyncError)
    {
        let log = try ChangeLogReader.read(data, key: key, limits: limits)
        // The reader checked the preamble and the trailer: these reads are in bounds.
        var preamble = ByteReader([UInt8](data.prefix(ChangeLogFormat.preambleLength)), context: "preamble")
        _ = try preamble.bytes(ChangeLogFormat.magic.count)
        formatVersion = Int(try preamble.uint16())
        let flags = try preamble.uint16()
        isEncrypted = flags & ChangeLogFormat.encryptedFlag != 0
        carriesLogicalTypes = flags & ChangeLogFormat.logicalTypesFlag != 0
        var trailer = ByteReader([UInt8](data.suffix(ChangeLogFormat.trailerLength)), context: "trailer")
        _ = try trailer.bytes(ChangeLogFormat.trailerMagic.count)
        frameCount = Int(try trailer.uint32())
        fileID = log.fileID
        keyID = log.keyID
        source = log.source
        lineage = log.lineage
        since = log.since
        vector = log.vector
        horizon = log.horizon
        entities = log.entities.map(Entity.init)
        digest = log.digest
    }

    /// The changed rows of one entity.
    public struct Entity: Sendable {
        /// The entity's name, as the writing store records it.
        public var name: String
        /// The kind of its key: a UUID, a String, or an `Int64` (format 2, `.autoIncrement`).
        public var keyKind: KeyKind
        /// The key kind's name in the file: `uuid`, `string` or `int64`.
        public var keyKindName: String { ChangeLogFormat.name(of: keyKind) }
        /// The columns the file carries values for.
        public var columns: [Column]
        /// Its changed rows, each once.
        public var rows: [Row]

        init(_ entity: ChangeLogEntity) {
            name = entity.name
            keyKind = entity.keyKind
            columns = entity.columns.map {
                Column(
                    name: $0.name, type: $0.type, previousNames: $0.previousNames, logicalType: $0.logicalType,
                    mergeRule: $0.rule.rawValue)
            }
            rows = entity.rows.map { row in
                Row(
                    key: row.key, causalLength: row.causalLength, version: Version(row.versions[0]),
                    values: row.values.map { change in
                        ColumnValue(
                            column: entity.columns[change.column].name, value: change.value,
                            version: Version(row.versions[change.version]))
                    })
            }
        }
    }

    /// A column, with the storage class of its values and the names it had before.
    public struct Column: Sendable, Hashable {
        /// The column's name in the writing store.
        public var name: String
        /// The storage class of its values.
        public var type: StorageType
        /// Names it had before a rename (`@Renamed(from:)`), by which an older replica knows it.
        public var previousNames: [String]
        /// What its values mean (`.date` for a Date's seconds, `.uuid` for 16 bytes; for a
        /// relationship, its target key's), when the file says (``carriesLogicalTypes``).
        public var logicalType: LogicalType?
        /// How its values merge (flags bit 3): `counter`, `maximum`, `minimum`,
        /// `resolver:<name>` (an app resolver), or empty for last-writer-wins. A counter's
        /// values are its per-site totals, a resolver's its contributions and value
        /// (docs/sync-format.md).
        public var mergeRule: String
    }

    /// One row's state beyond what the receiver had: the value of each column changed since,
    /// or its removal.
    public struct Row: Sendable {
        /// The row's key as stored (a UUID's 16 bytes, or the String).
        public var key: Value
        /// Odd while the row exists, even once removed; each removal and re-insertion adds one.
        public var causalLength: UInt64
        /// The row's base version (for a removal, the removal's).
        public var version: Version
        /// The changed columns' latest values.
        public var values: [ColumnValue]

        /// Whether the row was removed (a tombstone).
        public var isRemoval: Bool { causalLength % 2 == 0 }
    }

    /// A column's latest value and the version that wrote it.
    public struct ColumnValue: Sendable {
        /// The column's name (one of the entity's ``Column``s).
        public var column: String
        /// The value as stored: its storage class, read by its column's ``Column/logicalType``
        /// where the file carries one.
        public var value: Value
        public var version: Version
    }

    /// When, where and in which incarnation of its row a value was written: what the merge
    /// compares (causal length, then time, then site).
    public struct Version: Sendable, Hashable {
        public var causalLength: UInt64
        /// The hybrid logical clock's wall-clock part: milliseconds since 1970.
        public var milliseconds: UInt64
        /// The clock's counter among changes of the same millisecond.
        public var counter: UInt16
        /// The site that wrote it.
        public var site: UUID
        /// Which transaction of that site wrote it (what version vectors count).
        public var sequence: UInt64

        /// The wall-clock time of the write.
        public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

        init(_ version: ColumnVersion) {
            causalLength = version.causalLength
            milliseconds = version.timestamp >> 16
            counter = UInt16(truncatingIfNeeded: version.timestamp)
            site = version.site
            sequence = version.sequence
        }
    }
}
