import Foundation
@_spi(SharkReplication) import SharkORM

/// A change log in memory: what a file holds once read and checked, or what an export is
/// about to write. Sites are named by their ids here; the file numbers them.
struct ChangeLog: Sendable {
    var fileID: UUID
    /// The replica that wrote it.
    var source: UUID
    /// The lineage the source syncs in (see ``SyncEngine``).
    var lineage: String
    /// What the source assumed the receiver had: only changes beyond it are inside.
    var since: VersionVector
    /// What the source had seen when it wrote the file.
    var vector: VersionVector
    var entities: [ChangeLogEntity]
    /// How far the source's store forgot removals (format 2; see ``TombstoneHorizon``).
    var horizon = VersionVector()
    /// The source's digest of its whole synced content (a full export's last frame).
    var digest: SyncDigest?
    /// The id of the key that sealed the file, as read (format 3; 0 before it and when not
    /// sealed). A writer takes the id of the key it is given.
    var keyID: UInt32 = 0

    var rowCount: Int { entities.reduce(0) { $0 + $1.rows.count } }
}

/// The changed rows of one entity, with the columns they name.
struct ChangeLogEntity: Sendable {
    var name: String
    var keyKind: KeyKind
    /// The columns the rows' values refer to (by position), with their storage classes.
    var columns: [ChangeLogColumn]
    var rows: [RowChange]
}

struct ChangeLogColumn: Sendable, Hashable {
    var name: String
    var type: StorageType
    /// Names the column had before (`@Renamed(from:)`): a replica that has not migrated yet
    /// knows it by one of them.
    var previousNames: [String] = []
    /// What its values mean (a Date's real, a UUID's 16 bytes): the column's own logical
    /// type, or for a relationship its target key's. Written under flags bit 1.
    var logicalType: LogicalType? = nil
    /// How its values merge (flags bit 3; last-writer-wins when the file does not say).
    var rule: MergeRule = .lastWriterWins
}

/// One row's latest state beyond what the receiver has: its causal length, and the value of
/// each column changed since, with its version. A removed row (even causal length) carries
/// the removal's version and no value.
struct RowChange: Sendable {
    var key: Value
    var causalLength: UInt64
    /// The versions the values refer to by position; the first is the row's base version.
    var versions: [ColumnVersion]
    /// A slice: the rows of a frame read from a file share one array of values.
    var values: ArraySlice<ColumnChange>

    var isRemoval: Bool { causalLength % 2 == 0 }

    init(key: Value, causalLength: UInt64, versions: [ColumnVersion], values: [ColumnChange]) {
        self.key = key
        self.causalLength = causalLength
        self.versions = versions
        self.values = values[...]
    }
}

struct ColumnChange: Sendable {
    /// The position in ``ChangeLogEntity/columns``.
    var column: Int
    /// The position in ``RowChange/versions``.
    var version: Int
    var value: Value
}
