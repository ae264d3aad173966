import Foundation
@_spi(SharkReplication) import SharkORM

/// One small row per state batch (see `SyncStateBatchRecord`): its id, its entity, its shared
/// state and a ``KeyFilter`` of its keys. Kept apart from the batches, whose keys take 70 kB
/// each, so that what needs to know which batches matter reads the index alone: a commit
/// that changes a few rows finds the batches that may hold them by their filters, and an
/// export since a peer's vector skips the batches whose state the peer has. A million rows
/// inserted make 245 batches: the index is about 1.3 MB where the keys are 17 MB.
enum StateBatchIndex {
    static let entity = "SharkSyncStateBatchIndex"

    static let schema = EntitySchema(
        name: entity, keyKind: .autoIncrement,
        columns: [
            ColumnSchema(name: "id", type: .integer, isNullable: false),
            ColumnSchema(name: "entity", type: .text, isNullable: false),
            ColumnSchema(name: "state", type: .blob, isNullable: false),
            ColumnSchema(name: "filter", type: .blob, isNullable: false),
            ColumnSchema(name: "arrival", type: .integer, isNullable: false),
        ],
        indexes: [
            IndexSchema(entity: entity, columns: ["entity"], isUnique: false),
            IndexSchema(entity: entity, columns: ["arrival"], isUnique: false),
        ])

    /// The index as a store written before arrivals records it (no `arrival` column): what a
    /// read-only store, which cannot add the column, reads it by.
    static let schemaBeforeArrivals = EntitySchema(
        name: entity, keyKind: .autoIncrement, columns: Array(schema.columns.dropLast()),
        indexes: [IndexSchema(entity: entity, columns: ["entity"], isUnique: false)])

    /// The schema this store's index reads by: ``schema``, or on a read-only store written
    /// before arrivals ``schemaBeforeArrivals``.
    static func readableSchema(in store: Store) throws -> EntitySchema {
        guard store.isReadOnly,
            let recorded = try store.recordedSchemas().first(where: { $0.name == entity }),
            !recorded.columns.contains(where: { $0.name == "arrival" })
        else { return schema }
        return schemaBeforeArrivals
    }

    struct Entry {
        /// The batch record's id.
        var id: Int64
        var state: Data
        var filter: KeyFilter?
    }

    /// Whether `entityName` has a batch (one step of the entity index).
    static func hasEntries(of entityName: String, in store: Store) throws -> Bool {
        try !store.storedRows(
            of: try readableSchema(in: store), where: .comparison(.equal, .column("entity"), .value(.text(entityName))),
            orderedBy: [Ordering(.column("entity"))], limit: 1
        ).isEmpty
    }

    /// The entries of `entityName`'s batches, in the order the batches were written: all, or
    /// those written after arrival `after` (see ``ArrivalLog``; a batch written before
    /// arrivals counts as written at 0). Without `withFilters`, filters are not decoded.
    static func entries(of entityName: String, after arrival: Int64? = nil, withFilters: Bool = true, in store: Store)
        throws -> [Entry]
    {
        // Through one index, in its order (then id, the order written), so that the engine
        // neither reads the entries of batches a peer has nor sorts kilobytes of filters: the
        // arrival index for those written since (of every entity: they are few), else the
        // entity's.
        let schema = try readableSchema(in: store)
        let rows =
            if let arrival {
                try store.storedRows(
                    of: schema, where: .comparison(.greater, .column("arrival"), .value(.integer(arrival))),
                    orderedBy: [Ordering(.column("arrival"))], limit: Int.max
                ).filter { $0[1] == .text(entityName) }
            } else {
                try store.storedRows(
                    of: schema, where: .comparison(.equal, .column("entity"), .value(.text(entityName))),
                    orderedBy: [Ordering(.column("entity"))], limit: Int.max)
            }
        return rows.compactMap { row in
            guard case .integer(let id) = row[0], case .blob(let state) = row[2] else { return nil }
            guard withFilters, case .blob(let filter) = row[3] else { return Entry(id: id, state: state, filter: nil) }
            return Entry(id: id, state: state, filter: KeyFilter(encoded: filter))
        }
    }

    /// Whether every batch of `entityName` has its entry: false on a read-only store written
    /// before the index was, whose readers then read the batches themselves.
    static func isComplete(for entityName: String, in store: Store) throws -> Bool {
        // A writable engine prepared the index; only a read-only store may lack it. (Reading
        // the recorded schemas decodes every entity's: not for every export.)
        if store.isReadOnly, try !store.recordedSchemas().contains(where: { $0.name == entity }) { return false }
        let indexed = try store.countStoredRows(
            of: schema, where: .comparison(.equal, .column("entity"), .value(.text(entityName))))
        let batches = try SyncStateBatchRecord.query(in: store).where(\.entity == entityName).count()
        return indexed == batches
    }

    /// Adds the entry of batch `id`, written at `arrival` (0 for a batch older than arrivals).
    static func add(
        id: Value, entity entityName: String, state: Data, filter: KeyFilter, arrival: Int64, in tx: WriteTransaction
    ) throws {
        try tx.insertRows(
            [[id, .text(entityName), .blob(state), .blob(filter.encoded), .integer(arrival)]], schema: schema)
    }

    /// Writes the filter of batch `id` anew, after keys left it.
    static func replaceFilter(of id: Int64, with filter: KeyFilter, in tx: WriteTransaction) throws {
        var columns = ColumnSet()
        columns.insert(3)
        let row: [Value] = [.integer(id), .null, .null, .blob(filter.encoded), .null]
        try tx.updateRow(withKey: .integer(id), row: row, columns: columns, schema: schema)
    }

    static func remove(id: Int64, in tx: WriteTransaction) throws {
        try tx.deleteRow(withKey: .integer(id), schema: schema)
    }
}

extension SyncEngine {
    /// Writes the index entry of every batch that has none (batches written before the index
    /// was): once, when a writable engine opens a store that has such batches.
    func indexUnindexedBatches() throws {
        let batches = try SyncStateBatchRecord.query(in: store).count()
        guard try store.countStoredRows(of: StateBatchIndex.schema, where: nil) != batches else { return }
        try store.write { tx in
            let indexed = Set(try store.storedRows(of: StateBatchIndex.schema, inKeyOrder: false).map { $0[0] })
            try SyncStateBatchRecord.query(in: store).orderBy(\.id).batch(size: 16) { records in
                for record in records where !indexed.contains(.integer(record.id)) {
                    try tx.writingBookkeeping {
                        try StateBatchIndex.add(
                            id: .integer(record.id), entity: record.entity, state: record.state,
                            filter: KeyFilter(keys: try record.decodedKeys()), arrival: 0, in: tx)
                    }
                }
            }
            // Batch filters kept in memory (here or in another process) name the checkpoint
            // they match: a new one tells them the index changed.
            if try ArrivalLog.hasCheckpoint(in: store) {
                var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
                try ArrivalLog.record(
                    try ArrivalLog.begin(in: tx, sites: sites, filters: filters), sites: &sites, in: tx)
            }
        }
    }
}
