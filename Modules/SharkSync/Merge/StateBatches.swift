import Foundation
@_spi(SharkReplication) import SharkORM

/// Many rows of one entity that share one row state, stored once: the states of the rows a
/// transaction inserted, or an import brought, all with the same version. A bulk insert of
/// 1,000 rows then writes one batch instead of 1,000 state rows, which is most of what
/// capture costs (the state table is a second B-tree insert per row).
///
/// The rule: a key is in at most one batch, and a key in a batch has no row in the state
/// table; its state is the batch's. Only live states are batched (tombstones stay in the
/// state table, where inserts look for them). Before a row's state changes, its batched state
/// moves into the state table: a capture moves the keys its commit changed (see
/// `foldBatches(holding:at:in:)`), an import or a migration's catch-up folds the
/// entity's batches whole. So every other path reads and writes states as before.
@Model(entity: "SharkSyncStateBatch")
final class SyncStateBatchRecord {
    /// The synced entity.
    var entity: String = ""
    /// The shared state, encoded as the state table encodes states.
    var state: Data = Data()
    /// The keys: a count, then each key's tagged encoding.
    var keys: Data = Data()

    static let indexes: [Index<SyncStateBatchRecord>] = [.on(\.entity)]

    init(entity: String, state: Data, keys: Data) {
        self.entity = entity
        self.state = state
        self.keys = keys
    }

    /// The keys, decoded.
    func decodedKeys() throws -> [Value] {
        var reader = ByteReader(Array(keys), context: "a state batch", isMetadata: true)
        let count = try reader.count(limit: reader.remaining)
        var decoded: [Value] = []
        decoded.reserveCapacity(count)
        for _ in 0..<count { decoded.append(try reader.value()) }
        return decoded
    }

    /// `key` as ``encode(_:)`` writes it among the others.
    static func encode(key: Value) -> [UInt8] {
        var writer = ByteWriter(capacity: 18)
        writer.append(value: key)
        return writer.bytes
    }

    /// False when no key of `encodedKeys` (each from ``encode(key:)``) is among this batch's
    /// keys: a search of the bytes, which may also find one across two keys (then true).
    func mayHold(_ encodedKeys: [[UInt8]]) -> Bool {
        keys.withUnsafeBytes { stored in
            encodedKeys.contains { key in
                key.withUnsafeBytes { wanted in Self.bytes(stored, contain: wanted) }
            }
        }
    }

    /// Whether `wanted` occurs in `bytes`, found by its last byte first (a key's last bytes
    /// vary most; its first is a tag every key shares).
    private static func bytes(_ bytes: UnsafeRawBufferPointer, contain wanted: UnsafeRawBufferPointer) -> Bool {
        guard let last = wanted.last else { return true }
        guard wanted.count <= bytes.count, let base = bytes.baseAddress, let pattern = wanted.baseAddress else {
            return false
        }
        for end in (wanted.count - 1)..<bytes.count where bytes[end] == last {
            if memcmp(base + end - (wanted.count - 1), pattern, wanted.count) == 0 { return true }
        }
        return false
    }

    static func encode(_ keys: [Value]) -> Data {
        var writer = ByteWriter(capacity: keys.count * 18 + 4)
        writer.append(varint: keys.count)
        for key in keys { writer.append(value: key) }
        return Data(writer.bytes)
    }
}

extension SyncEngine {
    static let stateBatchEntity = "SharkSyncStateBatch"
}

extension RowStateTable {
    /// The most keys one batch holds: a bigger group of rows sharing a state is recorded as
    /// several batches, so that reading one (to move a key out of it, or to export it) costs
    /// the same whatever the size of the transaction that wrote it.
    static let largestBatch = 4096

    /// The fewest keys worth a batch: fewer new rows sharing a state get a state row each.
    /// A commit that changes a row checks its key against the filter of every batch of its
    /// entity (see ``foldBatches(holding:at:in:)``), so batches are kept for bulk writes: a
    /// store filled one row at a time (or synced a few rows at a time) has none, and one
    /// filled in commits of at least this many rows has at most one per this many rows.
    /// Below it, a state row costs about what a batch's record and index entry cost.
    static let smallestBatch = 256

    /// Hands each of this entity's batch records to `body`, in the order they were written,
    /// a few read at a time (its keys are decoded only when asked: an export skips a batch its
    /// peer has). None on a read-only store whose metadata predates batches. `body` may remove
    /// or rewrite the record it is given.
    func forEachBatch(in store: Store, _ body: (SyncStateBatchRecord) throws -> Void) throws {
        guard try Self.hasBatches(in: store) else { return }
        try SyncStateBatchRecord.query(in: store).where(\.entity == entity.name).orderBy(\.id).batch(size: 8) {
            records in
            for record in records { try body(record) }
        }
    }

    /// Whether this entity has any batch.
    func hasAnyBatch(in store: Store) throws -> Bool {
        guard try Self.hasBatches(in: store) else { return false }
        return try SyncStateBatchRecord.query(in: store).where(\.entity == entity.name).limit(1).count() > 0
    }

    /// Whether the store has the batch entity (every writable engine prepares it).
    private static func hasBatches(in store: Store) throws -> Bool {
        guard store.isReadOnly else { return true }
        return try store.recordedSchemas().contains { $0.name == SyncEngine.stateBatchEntity }
    }

    /// Records that every row of `keys` (none of which has a state yet) has `state`.
    /// They are recorded in batches of at most ``largestBatch`` keys, written as rows rather
    /// than objects: a transaction keeps the objects it writes until it ends (to restore them
    /// on a rollback), which for an import of ten million rows would be every batch's keys.
    func writeBatch(_ keys: [Value], state: Data, at arrival: Arrival, in tx: WriteTransaction) throws {
        for start in stride(from: 0, to: keys.count, by: Self.largestBatch) {
            let part = Array(keys[start..<min(start + Self.largestBatch, keys.count)])
            let id = try tx.insertRow(
                [
                    "entity": .text(entity.name), "state": .blob(state),
                    "keys": .blob(SyncStateBatchRecord.encode(part)),
                ],
                into: SyncEngine.stateBatchEntity)
            let filter = KeyFilter(keys: part)
            try StateBatchIndex.add(
                id: id, entity: entity.name, state: state, filter: filter, arrival: arrival.number, in: tx)
            if case .integer(let number) = id {
                arrival.filters.added(id: number, entity: entity.name, filter: filter, at: arrival)
            }
        }
    }

    /// Removes a batch's record, as a row (see ``writeBatch(_:state:at:in:)``).
    private func removeBatch(_ record: SyncStateBatchRecord, at arrival: Arrival, in tx: WriteTransaction) throws {
        _ = try tx.deleteRow(withKey: .integer(record.id), from: SyncEngine.stateBatchEntity)
        try StateBatchIndex.remove(id: record.id, in: tx)
        arrival.filters.removed(id: record.id, entity: entity.name, at: arrival)
    }

    /// Moves this entity's batched states into the state table, one row per key, before
    /// states are read or changed one by one. Returns whether there was anything to fold.
    ///
    /// Usually every batched key is new to the state table, and the rows go in with one bulk
    /// insert (in a savepoint). A key can be recorded twice, though: a row removed while no
    /// engine watched (or by another observer) and inserted again is batched although its old
    /// state stays. Then the insert fails on the state table's key, the savepoint rolls back,
    /// and each key's records are resolved in order (see ``resolve(_:with:)``).
    ///
    /// Batches are folded in groups, in the order they were written, so that memory stays a
    /// few batches' worth: a key of a later group resolves over what the earlier ones wrote.
    @discardableResult
    func foldBatches(at arrival: Arrival, in tx: WriteTransaction) throws -> Bool {
        var group: [(record: SyncStateBatchRecord, state: Data, keys: [Value])] = []
        var folded = false
        func foldGroup() throws {
            guard !group.isEmpty else { return }
            try writeStates(of: group, at: arrival, in: tx)
            for batch in group { try removeBatch(batch.record, at: arrival, in: tx) }
            group.removeAll(keepingCapacity: true)
            folded = true
        }
        try forEachBatch(in: tx.store) { record in
            group.append((record, record.state, try record.decodedKeys()))
            if group.count == 16 { try foldGroup() }
        }
        try foldGroup()
        return folded
    }

    /// Writes a state row for each key of `batches` with its batch's state, stamped with
    /// `arrival`: one bulk insert in a savepoint, or, when a key already has a state row, each
    /// key resolved in order.
    private func writeStates(
        of batches: [(record: SyncStateBatchRecord, state: Data, keys: [Value])], at arrival: Arrival,
        in tx: WriteTransaction
    ) throws {
        var states: [(key: Value, state: Data, isNew: Bool)] = []
        states.reserveCapacity(batches.reduce(0) { $0 + $1.keys.count })
        for batch in batches {
            for key in batch.keys { states.append((key, batch.state, true)) }
        }
        do {
            try tx.transaction { inner in try write(states, at: arrival, in: inner) }
        } catch SharkError.uniqueConstraint {
            try foldOverlapping(batches, at: arrival, in: tx)
        }
    }

    /// Moves the batched states of `keys` alone into the state table, before their states
    /// change one by one; every other key stays in its batch, whose record is rewritten
    /// without the keys that left it. What a capture calls: the first update after a bulk
    /// insert of a million rows then writes one state row, where a whole fold wrote a million
    /// (it still reads the batches' keys to find the ones it moves). Returns whether any key
    /// was batched.
    @discardableResult
    func foldBatches(holding keys: [Value], at arrival: Arrival, in tx: WriteTransaction) throws -> Bool {
        let wanted = Set(keys.map(RowKey.init))
        let encodedKeys = keys.map(SyncStateBatchRecord.encode(key:))
        var leaving: [(record: SyncStateBatchRecord, state: Data, keys: [Value])] = []
        var staying: [(record: SyncStateBatchRecord, keys: [Value])] = []
        let candidates = try arrival.filters.candidates(of: entity.name, holding: keys, at: arrival, in: tx.store)
        guard !candidates.isEmpty else { return false }
        for start in stride(from: 0, to: candidates.count, by: 16) {
            let slice = Array(candidates[start..<min(start + 16, candidates.count)])
            for record in try SyncStateBatchRecord.query(in: tx.store).where(.isIn(\.id, slice)).orderBy(\.id).fetch() {
                // A filter may name a batch that does not hold the keys (one in 1,400): a
                // search of its bytes for theirs skips it without decoding a key.
                guard record.mayHold(encodedKeys) else { continue }
                var moved: [Value] = []
                var kept: [Value] = []
                for key in try record.decodedKeys() {
                    if wanted.contains(RowKey(key)) { moved.append(key) } else { kept.append(key) }
                }
                guard !moved.isEmpty else { continue }
                leaving.append((record, record.state, moved))
                staying.append((record, kept))
            }
        }
        guard !leaving.isEmpty else { return false }
        try writeStates(of: leaving, at: arrival, in: tx)
        for (record, kept) in staying {
            if kept.isEmpty {
                try removeBatch(record, at: arrival, in: tx)
            } else {
                _ = try tx.updateRow(
                    withKey: .integer(record.id), in: SyncEngine.stateBatchEntity,
                    setting: ["keys": .blob(SyncStateBatchRecord.encode(kept))])
                // The filter of the keys that stay: a key that left would otherwise send every
                // later commit of it to read this batch again for nothing.
                let filter = KeyFilter(keys: kept)
                try StateBatchIndex.replaceFilter(of: record.id, with: filter, in: tx)
                arrival.filters.replaced(id: record.id, entity: entity.name, filter: filter, at: arrival)
            }
        }
        return true
    }

    /// The slow fold: each batched key's state resolved over what the state table and the
    /// earlier batches hold for it.
    private func foldOverlapping(
        _ batches: [(record: SyncStateBatchRecord, state: Data, keys: [Value])], at arrival: Arrival,
        in tx: WriteTransaction
    ) throws {
        var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: tx.store)))
        var resolved: [RowKey: (key: Value, state: RowState)] = [:]
        var order: [RowKey] = []
        for batch in batches {
            let state = try decode(batch.state, sites: sites)
            for key in batch.keys {
                let rowKey = RowKey(key)
                if let earlier = resolved[rowKey] {
                    resolved[rowKey]!.state = Self.resolve(earlier.state, with: state)
                } else {
                    resolved[rowKey] = (key, state)
                    order.append(rowKey)
                }
            }
        }
        let stored = try states(order.map { resolved[$0]!.key }, in: tx.store)
        var written: [(key: Value, state: Data, isNew: Bool)] = []
        written.reserveCapacity(order.count)
        for rowKey in order {
            var (key, state) = resolved[rowKey]!
            if let data = stored[rowKey] { state = Self.resolve(try decode(data, sites: sites), with: state) }
            written.append((key, sites.encode(state), stored[rowKey] == nil))
        }
        try write(written, at: arrival, in: tx)
    }

    /// A key's state when `batched` was recorded after `earlier`: a batch records an insert
    /// of the row at its version, so it is that insert applied to the earlier state (a new
    /// incarnation when the earlier one was removed).
    static func resolve(_ earlier: RowState, with batched: RowState) -> RowState {
        var state = earlier
        state.recordInsert(
            TransactionStamp(
                timestamp: batched.base.timestamp, site: batched.base.site, sequence: batched.base.sequence))
        return state
    }
}
