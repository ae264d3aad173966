import Foundation
@_spi(SharkReplication) import SharkORM

/// A row that claims the values of a unique index which another row holds: it keeps its
/// claim (exported, and taken back when the holder lets the values go) and shows a stand-in
/// in one of the index's columns meanwhile (see docs/sync.md, "Unique values").
///
/// ```swift
/// for standIn in try sync.standIns() {
///     print("\(standIn.entity) \(standIn.key) waits for \(standIn.claimed), held by \(standIn.holder as Any)")
/// }
/// ```
public struct StandIn: Sendable, Hashable {
    /// The entity of the waiting row.
    public var entity: String
    /// The waiting row's key.
    public var key: Value
    /// The unique index's columns.
    public var columns: [String]
    /// The values the row claims, in `columns`' order.
    public var claimed: [Value]
    /// The column that shows the stand-in.
    public var column: String
    /// What that column holds meanwhile: NULL, or the claimed value, U+001F and the key.
    public var standIn: Value
    /// The key of the row that holds the claimed values: its claim is the later one. nil only
    /// while a transaction is settling them.
    public var holder: Value?
}

extension SyncEngine {
    /// Every row of the synced models that holds a stand-in for a unique value another row
    /// holds, and why: by entity name, then index, then key.
    ///
    /// Two replicas can each give a different row the same value of a unique index. Sync
    /// keeps the index by a rule of the merged rows alone, the same on every replica: the row
    /// whose claim is latest holds the value, the others keep their claim and show a stand-in
    /// until the holder changes its value or is removed, when the next claimant takes it back.
    /// This call lists the waiting rows, for an app that would rather settle them itself
    /// (by giving one of them another value: an ordinary write, which syncs like any other).
    ///
    /// ```swift
    /// for standIn in try sync.standIns() where standIn.entity == "Account" {
    ///     guard case .text(let claimed) = standIn.claimed[0] else { continue }
    ///     try sync.store.write { tx in
    ///         _ = try tx.updateRow(withKey: standIn.key, in: "Account", setting: ["handle": .text(claimed + "-2")])
    ///     }
    /// }
    /// ```
    public func standIns() throws -> [StandIn] {
        guard recordsStandIns else { return [] }
        var found: [StandIn] = []
        for name in uniqueClaims.keys.sorted() {
            let claims = uniqueClaims[name]!
            let records = try SyncStandInRecord.query(in: store).where(\.entity == name && \.holds == false)
                .orderBy(\.id).fetch()
            for index in claims.indexes {
                for record in records where record.index == index.name {
                    let key = try record.decodedKey()
                    let claimed = try record.decodedValues()
                    let conditions = zip(index.positions, claimed).map { position, value in
                        QueryExpression.comparison(.equal, .column(claims.entity.columns[position].name), .value(value))
                    }
                    let holder = try store.storedRows(of: claims.entity, where: .and(conditions)).first?[0]
                    let offset = index.positions.firstIndex(of: index.standInPosition)!
                    found.append(
                        StandIn(
                            entity: name, key: key, columns: index.positions.map { claims.entity.columns[$0].name },
                            claimed: claimed, column: claims.entity.columns[index.standInPosition].name,
                            standIn: UniqueClaims.standIn(for: claimed[offset], of: index, key: key), holder: holder))
                }
            }
        }
        return found
    }
}
