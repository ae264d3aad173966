import Foundation
import SharkORM

/// Many rows of one entity that share one row state, stored once: the states of the rows a
/// transaction inserted, or an import brought, all with the same version. A bulk insert of
/// 1,000 rows then writes one batch instead of 1,000 state rows, which is most of what
/// capture costs (the state table is a second B-tree insert per row).
///
/// The rule: a key is in at most one batch, and a key in a batch has no row in the state
/// table; its state is the batch's. Only live states are batched (tombstones stay in the
/// state table, where inserts look for them). Before a row's state changes (an update or a
/// removal captured, an import, a migration's catch-up) the entity's batches are folded into
/// the state table, so every other path reads and writes states as before.
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
        var reader = ByteReader(Array(keys), context: "a state batch")
        let count = try reader.count(limit: reader.remaining)
        var decoded: [Value] = []
        decoded.reserveCapacity(count)
        for _ in 0..<count { decoded.append(try reader.value()) }
        return decoded
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
    /// This entity's batches: each shared state and its keys. Empty on a read-only store
    /// whose metadata predates batches.
    func batches(in store: Store) throws -> [(record: SyncStateBatchRecord, state: Data, keys: [Value])] {
        guard try Self.hasBatches(in: store) else { return [] }
        return try SyncStateBatchRecord.query(in: store).where(\.entity == entity.name).orderBy(\.id).fetch().map {
            ($0, $0.state, try $0.decodedKeys())
        }
    }

    /// Whether the store has the batch entity (every writable engine prepares it).
    private static func hasBatches(in store: Store) throws -> Bool {
        guard store.isReadOnly else { return true }
        return try store.recordedSchemas().contains { $0.name == SyncEngine.stateBatchEntity }
    }

    /// Records that every row of `keys` (none of which has a state yet) has `state`.
    func writeBatch(_ keys: [Value], state: Data, in tx: WriteTransaction) throws {
        guard !keys.isEmpty else { return }
        try tx.commit(SyncStateBatchRecord(entity: entity.name, state: state, keys: SyncStateBatchRecord.encode(keys)))
    }

    /// Moves this entity's batched states into the state table, one row per key, before
    /// states are read or changed one by one. Returns whether there was anything to fold.
    @discardableResult
    func foldBatches(in tx: WriteTransaction) throws -> Bool {
        let batches = try batches(in: tx.store)
        guard !batches.isEmpty else { return false }
        var states: [(key: Value, state: Data, isNew: Bool)] = []
        states.reserveCapacity(batches.reduce(0) { $0 + $1.keys.count })
        for batch in batches {
            for key in batch.keys { states.append((key, batch.state, true)) }
        }
        try write(states, in: tx)
        for batch in batches { try tx.remove(batch.record) }
        return true
    }
}
