import Foundation
@_spi(SharkReplication) import SharkORM

/// One transaction's work on one entity's unique indexes (see ``UniqueClaims``): each row the
/// transaction writes is *settled* before it is written (it takes its value when nobody else
/// has or wants it, a stand-in otherwise), and every value that became contested is
/// *resolved* once all rows are written (its latest claimant takes it, the others wait with a
/// stand-in). Rows whose index values do not change cost nothing, and an entity without
/// waiting rows costs a lookup per row it writes into a unique index.
///
/// Resolving only after every row is written is what lets two rows swap their values in one
/// file or transaction: neither ever needs the other's value while the other still has it.
final class ClaimResolver {
    let claims: UniqueClaims
    let table: RowStateTable
    let tx: WriteTransaction
    let arrival: Arrival
    /// Whether the entity has any stand-in record (when not, no value is contested yet).
    private var hasRecords: Bool
    /// The values whose claimants are settled when the transaction's rows are all written.
    private var contested = Set<Claim>()
    /// Values taken by rows written since the last ``rowsWritten()`` and not yet in the store
    /// (an import inserts a frame's rows at once).
    private var pendingClaims = Set<Claim>()
    /// Told of each row that loses a value here (an import's conflicts, ``SyncConflict``):
    /// the row's key, the index's column names, the value, and the key of the row holding it.
    var onLoss: ((_ key: Value, _ columns: [String], _ values: [Value], _ holder: Value) -> Void)?
    /// The rows settled here that had to wait for a value (rows of this transaction), with
    /// the value.
    private var waitedHere = Set<WaitingRow>()

    private struct WaitingRow: Hashable {
        let key: RowKey
        let claim: Claim
    }

    /// One value of one index.
    struct Claim: Hashable {
        let index: Int
        let values: [Value]
    }

    init(_ claims: UniqueClaims, table: RowStateTable, arrival: Arrival, in tx: WriteTransaction) throws {
        self.claims = claims
        self.table = table
        self.arrival = arrival
        self.tx = tx
        hasRecords = try Self.hasRecords(of: claims.entity.name, in: tx.store)
    }

    static func hasRecords(of entity: String, in store: Store) throws -> Bool {
        try SyncStandInRecord.query(in: store).where(\.entity == entity).first() != nil
    }

    // MARK: Settling a row

    /// Settles one row the transaction writes, before it is written; returns the values to
    /// write beyond (or instead of) the transaction's own, by column position.
    ///
    /// - Parameters:
    ///   - exists: whether the row is live after the write.
    ///   - written: the columns the write sets (nil: all of them, an insert).
    ///   - after: the row as the write leaves it, in schema order (the columns it does not
    ///     set as the store has them).
    ///   - stored: the row as the store holds it before the write (nil: it holds none; for
    ///     a write already made, the row as it is now).
    func settle(key: Value, exists: Bool, written: ColumnSet?, after: [Value], stored: [Value]?) throws -> [Int: Value]
    {
        var overrides: [Int: Value] = [:]
        for (number, index) in claims.indexes.enumerated() {
            let touched =
                !exists || written.map { written in index.positions.contains { written.contains(Int32($0)) } } ?? true
            guard touched else { continue }
            var displaced: [Value]?
            if hasRecords, let record = try record(of: key, in: index) {
                // The row's part in a contested value ends here; the value is looked at again.
                let values = try record.decodedValues()
                if !record.holds { displaced = values }
                contested.insert(Claim(index: number, values: values))
                try tx.writingBookkeeping { try tx.remove(record) }
            }
            guard exists else { continue }
            let truth = index.positions.enumerated().map { offset, position in
                let isWritten = written?.contains(Int32(position)) ?? true
                return isWritten ? after[position] : (displaced?[offset] ?? after[position])
            }
            guard !truth.contains(.null) else {
                // A NULL claims nothing: the row shows its values as they are.
                for (offset, position) in index.positions.enumerated() where after[position] != truth[offset] {
                    overrides[position] = truth[offset]
                }
                continue
            }
            let claimed = truth
            let claim = Claim(index: number, values: claimed)
            if let stored, index.positions.map({ stored[$0] }) == claimed {
                // It holds the value already (its claim's version changed): a contest only if
                // others wait for it.
                if hasRecords, try isWaitedFor(claim) { contested.insert(claim) }
                continue
            }
            var isFree = !contested.contains(claim) && !pendingClaims.contains(claim)
            if isFree { isFree = try !isHeld(claim, byOtherThan: key) }
            if isFree, hasRecords { isFree = try !isWaitedFor(claim) }
            if isFree {
                pendingClaims.insert(claim)
                for (offset, position) in index.positions.enumerated() where after[position] != claimed[offset] {
                    overrides[position] = claimed[offset]
                }
            } else {
                for (offset, position) in index.positions.enumerated() {
                    let shown =
                        position == index.standInPosition
                        ? UniqueClaims.standIn(for: claimed[offset], of: index, key: key) : claimed[offset]
                    if after[position] != shown { overrides[position] = shown }
                }
                try wait(key: key, for: claim)
                contested.insert(claim)
                if onLoss != nil { waitedHere.insert(WaitingRow(key: RowKey(key), claim: claim)) }
            }
        }
        return overrides
    }

    /// The rows settled so far are all in the store now.
    func rowsWritten() { pendingClaims.removeAll(keepingCapacity: true) }

    // MARK: Resolving the contested values

    /// Gives each contested value to its latest claimant, and a stand-in to the others.
    /// `sites`: the transaction's site table (the states it wrote may name sites it has not
    /// recorded yet).
    func resolveContested(sites: SiteTable) throws {
        // In a fixed order, so that events list the rows alike on every replica.
        let all = contested.map { claim in (claim, claim.values.flatMap(\.encodedKey)) }.sorted { a, b in
            a.0.index != b.0.index ? a.0.index < b.0.index : a.1.lexicographicallyPrecedes(b.1)
        }
        contested.removeAll()
        pendingClaims.removeAll()
        defer { waitedHere.removeAll() }
        for (claim, _) in all { try resolve(claim, sites: sites) }
    }

    private func resolve(_ claim: Claim, sites: SiteTable) throws {
        let index = claims.indexes[claim.index]
        let schema = claims.entity
        let holder = try storedRow(holding: claim)?[0]
        let records = try tx.fetch(
            SyncStandInRecord.query(in: tx.store).where(
                \.claim
                    == SyncStandInRecord.claimIdentifier(entity: schema.name, index: index.name, values: claim.values)))
        var waiting: [Value] = []
        var stale: [SyncStandInRecord] = []
        for record in records {
            let key = try record.decodedKey()
            if record.holds || key == holder { stale.append(record) } else { waiting.append(key) }
        }
        if !stale.isEmpty { try tx.writingBookkeeping { for record in stale { try tx.remove(record) } } }
        guard !waiting.isEmpty else { return }
        let candidates = (holder.map { [$0] } ?? []) + waiting
        _ = try tx.writingBookkeeping { try table.foldBatches(holding: candidates, at: arrival, in: tx) }
        let states = try table.states(candidates, in: tx.store)
        var versions: [ColumnVersion] = []
        for key in candidates {
            guard let data = states[RowKey(key)] else {
                versions.append(RowMerge.unknown)
                continue
            }
            versions.append(claims.claimVersion(of: try table.decode(data, sites: sites), on: index))
        }
        var winner = 0
        for candidate in candidates.indices.dropFirst()
        where UniqueClaims.loses(
            versions[winner], key: candidates[winner], to: versions[candidate], key: candidates[candidate])
        {
            winner = candidate
        }
        let winnerKey = candidates[winner]
        var losers = candidates
        losers.remove(at: winner)
        if let onLoss {
            let columns = index.positions.map { schema.columns[$0].name }
            for loser in losers
            where loser == holder || waitedHere.contains(WaitingRow(key: RowKey(loser), claim: claim)) {
                onLoss(loser, columns, claim.values, winnerKey)
            }
        }
        if let holder, holder != winnerKey {
            // The holder gives the value up first: no moment where two rows hold it.
            try show(standInOf: claim, on: holder)
            try wait(key: holder, for: claim)
        }
        if holder != winnerKey {
            try show(claim, on: winnerKey)
            if let record = try record(of: winnerKey, in: index) {
                try tx.writingBookkeeping { try tx.remove(record) }
            }
        }
        if !losers.isEmpty {
            try tx.writingBookkeeping {
                try tx.commit(
                    SyncStandInRecord(
                        entity: schema.name, index: index.name, key: winnerKey, values: claim.values, holds: true))
            }
        }
    }

    // MARK: Rows and records

    private func record(of key: Value, in index: UniqueClaims.Index) throws -> SyncStandInRecord? {
        let id = SyncStandInRecord.identifier(entity: claims.entity.name, index: index.name, key: key)
        return try SyncStandInRecord.query(in: tx.store).where(\.id == id).first()
    }

    /// Records that the row keyed `key` claims `claim` and holds a stand-in meanwhile.
    private func wait(key: Value, for claim: Claim) throws {
        let index = claims.indexes[claim.index]
        try tx.writingBookkeeping {
            try tx.commit(
                SyncStandInRecord(
                    entity: claims.entity.name, index: index.name, key: key, values: claim.values, holds: false))
        }
        hasRecords = true
    }

    private func isWaitedFor(_ claim: Claim) throws -> Bool {
        let identifier = SyncStandInRecord.claimIdentifier(
            entity: claims.entity.name, index: claims.indexes[claim.index].name, values: claim.values)
        return try SyncStandInRecord.query(in: tx.store).where(\.claim == identifier && \.holds == false).first() != nil
    }

    private func isHeld(_ claim: Claim, byOtherThan key: Value) throws -> Bool {
        guard let row = try storedRow(holding: claim) else { return false }
        return row[0] != key
    }

    /// The row whose index values are `claim`'s, if any.
    private func storedRow(holding claim: Claim) throws -> [Value]? {
        let index = claims.indexes[claim.index]
        let conditions = zip(index.positions, claim.values).map { position, value in
            QueryExpression.comparison(.equal, .column(claims.entity.columns[position].name), .value(value))
        }
        return try tx.store.storedRows(of: claims.entity, where: .and(conditions)).first
    }

    private func show(_ claim: Claim, on key: Value) throws {
        let index = claims.indexes[claim.index]
        var row = claims.entity.columns.map { _ in Value.null }
        var columns = ColumnSet()
        for (offset, position) in index.positions.enumerated() {
            row[position] = claim.values[offset]
            columns.insert(Int32(position))
        }
        try tx.updateRow(withKey: key, row: row, columns: columns, schema: claims.entity)
    }

    private func show(standInOf claim: Claim, on key: Value) throws {
        let index = claims.indexes[claim.index]
        let offset = index.positions.firstIndex(of: index.standInPosition)!
        var row = claims.entity.columns.map { _ in Value.null }
        row[index.standInPosition] = UniqueClaims.standIn(for: claim.values[offset], of: index, key: key)
        var columns = ColumnSet()
        columns.insert(Int32(index.standInPosition))
        try tx.updateRow(withKey: key, row: row, columns: columns, schema: claims.entity)
    }
}
