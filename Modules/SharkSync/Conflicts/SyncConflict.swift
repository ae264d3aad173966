import Foundation
@_spi(SharkReplication) import SharkORM

/// A value an import replaced or refused because another replica changed the same thing
/// without having seen it: what an app shows as "edited on another device".
///
/// Reported, when ``SyncOptions/onConflict`` is set, for each row and column as the import
/// merges it (see docs/sync.md, "Conflicts"). Two writes are **concurrent** when neither
/// writer had seen the other's: every synced value carries the writes of other replicas it
/// replaced (``SyncConflict`` is exact for values written by this release; see the guide for
/// the few cases it approximates). Writes one replica made after seeing the other's are never
/// reported.
///
/// ```swift
/// var options = SyncOptions()
/// options.onConflict = { conflict in print("changed on another device: \(conflict)") }
/// ```
public struct SyncConflict: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// This replica's value was replaced by a concurrent one from the file (last-writer-wins:
        /// the file's was written later). `localValue` lost; `incomingValue` is what the row
        /// holds now.
        case overwritten
        /// The file's value lost to this replica's concurrent one, which the row keeps: the
        /// file's was written earlier, or for a row removed here, in an incarnation this
        /// replica removed without having seen it.
        case incomingLost
        /// An app resolver joined this replica's value with a concurrent one from the file
        /// (`MergePolicy.resolved(_:as:by:)`): the row holds `mergedValue`.
        case merged
        /// This replica's value was erased by a removal of its row elsewhere, by a replica that
        /// had not seen it.
        case erasedByRemoval
        /// A row lost a unique value to a concurrent row that claims it too (docs/sync.md,
        /// "Unique values"): it shows a stand-in until the value is free again. `column`
        /// names the index's columns, `uniqueValues` the value (`localValue` too, for an
        /// index of one column); `holder` the key of the row that holds it now.
        case uniqueValueLost
    }

    /// What happened to the values.
    public var kind: Kind
    /// The entity (model) of the row.
    public var entity: String
    /// The row's key.
    public var key: Value
    /// The column; for a unique value lost, the index's columns joined by `,`.
    public var column: String
    /// This replica's value, and the replica that wrote it (nil: unknown).
    public var localValue: Value?
    public var localSite: UUID? { localVersion?.site }
    /// When and where this replica's value (or its row's removal) was written.
    public var localVersion: SyncVersion?
    /// The file's value, and the replica that wrote it.
    public var incomingValue: Value?
    public var incomingSite: UUID? { incomingVersion?.site }
    /// When and where the file's value (or its removal of the row) was written.
    public var incomingVersion: SyncVersion?
    /// For ``Kind/merged``, the joined value the row holds now.
    public var mergedValue: Value?
    /// For ``Kind/uniqueValueLost``, the key of the row that holds the value now, and the
    /// value (one per column of the index).
    public var holder: Value?
    public var uniqueValues: [Value]

    /// A conflict as an import reports it; apps make one only to test their handler.
    ///
    /// ```swift
    /// let conflict = SyncConflict(kind: .overwritten, entity: "Memo", key: .text("todo"), column: "text")
    /// ```
    public init(
        kind: Kind, entity: String, key: Value, column: String, localValue: Value? = nil,
        localVersion: SyncVersion? = nil, incomingValue: Value? = nil, incomingVersion: SyncVersion? = nil,
        mergedValue: Value? = nil, holder: Value? = nil, uniqueValues: [Value] = []
    ) {
        self.kind = kind
        self.entity = entity
        self.key = key
        self.column = column
        self.localValue = localValue
        self.localVersion = localVersion
        self.incomingValue = incomingValue
        self.incomingVersion = incomingVersion
        self.mergedValue = mergedValue
        self.holder = holder
        self.uniqueValues = uniqueValues
    }

    /// One line: the kind, the row and column, and the values.
    public var description: String {
        var text = "\(kind.rawValue) \(entity)[\(key)].\(column)"
        if let localValue { text += " local \(localValue)" }
        if let incomingValue { text += " incoming \(incomingValue)" }
        if let mergedValue { text += " merged \(mergedValue)" }
        if let holder { text += " held by \(holder)" }
        return text
    }
}
