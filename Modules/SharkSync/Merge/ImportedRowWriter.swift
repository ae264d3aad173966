import Foundation
@_spi(SharkReplication) import SharkORM

/// Writes the merged rows of one entity of an import: removals and updates at once, new
/// rows gathered for one bulk insert, and their states gathered for the metadata (written
/// after every entity, outside the changes events report).
struct ImportedRowWriter {
    let schema: EntitySchema
    private(set) var inserts: [[Value]] = []
    private(set) var states: [(key: Value, state: Data, isNew: Bool)] = []
    /// New live states that share their encoding (the rows one transaction of the source
    /// inserted), in the order first met: written as batches (see `SyncStateBatchRecord`).
    private var batches: [(state: Data, keys: [Value])] = []
    private var batchOf: [Data: Int] = [:]
    /// Rows of one source transaction come together: the last state is encoded once for them all.
    private var last: (state: RowState, encoded: Data, batch: Int?)?
    /// Whether a row was removed (the entity then has tombstones).
    private(set) var removes = false

    init(schema: EntitySchema, expectedRows: Int) {
        self.schema = schema
        inserts.reserveCapacity(expectedRows)
    }

    mutating func write(_ row: ImportedRow, sites: inout SiteTable, in tx: WriteTransaction) throws {
        if !row.state.exists {
            removes = true
            if row.isPresent { try tx.deleteRow(withKey: row.key, schema: schema) }
        } else if row.isPresent {
            try tx.updateRow(withKey: row.key, row: row.values, columns: row.written, schema: schema)
        } else {
            inserts.append(row.values)
        }
        let state = row.state
        let encoded = last?.state == state ? last!.encoded : sites.encode(state)
        // A batch's keys share one state, and a fold rebuilds it as an insert: rows whose
        // policy columns keep totals or values of their own get state rows.
        guard !row.hadState, state.exists, state.overrides.isEmpty, !state.hasPolicyState else {
            states.append((row.key, encoded, !row.hadState))
            last = (state, encoded, nil)
            return
        }
        let batch: Int
        if let known = last?.batch, last?.encoded == encoded {
            batch = known
        } else if let known = batchOf[encoded] {
            batch = known
        } else {
            batch = batches.count
            batchOf[encoded] = batch
            batches.append((encoded, []))
        }
        batches[batch].keys.append(row.key)
        last = (state, encoded, batch)
    }

    /// The states to write as rows, and the batches: a batch of fewer than `smallestBatch`
    /// keys is written as rows.
    func metadata(smallestBatch: Int) -> (
        states: [(key: Value, state: Data, isNew: Bool)], batches: [(state: Data, keys: [Value])]
    ) {
        var rows = states
        for batch in batches where batch.keys.count < smallestBatch {
            rows += batch.keys.map { ($0, batch.state, true) }
        }
        return (rows, batches.filter { $0.keys.count >= smallestBatch })
    }
}
