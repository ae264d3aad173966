import Foundation
@_spi(SharkReplication) import SharkORM

/// The order in which row states were written here, so that an export since a peer's vector
/// reads the states written since that peer last had everything, not every state the store
/// holds: after a million rows, the last hundred changes cost what they cost at ten thousand.
///
/// Every transaction that writes row states takes the next *arrival* number (``Arrival``)
/// and stamps each state row it writes with it (the state table's indexed `arrival` column).
/// When it ends it records a checkpoint: its number and its *cover*, the highest sequence per
/// site of every version the metadata has held up to then (the previous checkpoint's cover
/// with the transaction's new versions: a capture's stamp, every version an import brought).
/// So a state row stamped at or before a checkpoint holds versions within that checkpoint's
/// cover, and a peer whose vector includes the cover has all of those rows: an export to it
/// reads only the rows stamped after (``lastCovered(by:in:sites:)``).
///
/// The cover is not the store's version vector: an import leaves a site out of the vector
/// while some of its changes wait (see `SyncPendingRecord`), yet stores the rest.
///
/// Batched states (see `SyncStateBatchRecord`) carry no arrival: an export reads each batch's
/// state from the batch index, and a key that leaves its batch is stamped with the arrival of
/// the transaction that moves it. Every transaction that writes or removes batches records a
/// checkpoint too, with a random token: the pair names the state of the batch index, which
/// is what lets ``BatchFilterCache`` keep its filters between commits. Checkpoints older than
/// the latest ``denseCheckpoints`` are thinned to one in that many: a peer that far behind
/// reads a few more rows, never fewer.
enum ArrivalLog {
    static let entity = "SharkSyncArrival"

    static let schema = EntitySchema(
        name: entity, keyKind: .autoIncrement,
        columns: [
            ColumnSchema(name: "id", type: .integer, isNullable: false),
            ColumnSchema(name: "cover", type: .blob, isNullable: false),
            ColumnSchema(name: "token", type: .integer, isNullable: false),
        ])

    /// How many of the latest checkpoints are all kept.
    static let denseCheckpoints: Int64 = 1024

    /// The arrival of a transaction that writes row states or batches, from the latest
    /// checkpoint; `filters` are the engine's (see ``BatchFilterCache``).
    static func begin(in tx: WriteTransaction, sites: SiteTable, filters: BatchFilterCache) throws -> Arrival {
        guard let latest = try latestRow(in: tx.store) else {
            throw SyncError.corrupt(.damagedMetadata, "the sync metadata has no arrival checkpoint")
        }
        let (previous, cover) = try checkpoint(latest, sites: sites)
        return Arrival(previous: previous, cover: cover, filters: filters)
    }

    /// The latest checkpoint's name, the one the next transaction begins from.
    static func latest(in store: Store) throws -> ArrivalCheckpoint? {
        guard let row = try latestRow(in: store) else { return nil }
        guard case .integer(let number) = row[0], case .integer(let token) = row[2] else {
            throw SyncError.corrupt(.damagedMetadata, "an arrival checkpoint of the sync metadata is damaged")
        }
        return ArrivalCheckpoint(number: number, token: token)
    }

    private static func latestRow(in store: Store) throws -> [Value]? {
        try store.storedRows(of: schema, where: nil, orderedBy: [Ordering(.column("id"), ascending: false)], limit: 1)
            .first
    }

    /// Records `arrival`'s checkpoint, and thins the one that leaves the dense stretch.
    static func record(_ arrival: Arrival, sites: inout SiteTable, in tx: WriteTransaction) throws {
        let row: [Value] = [
            .integer(arrival.number), .blob(encode(arrival.cover, sites: &sites)), .integer(arrival.identity.token),
        ]
        try tx.writingBookkeeping {
            try tx.insertRows([row], schema: schema)
            let leaving = arrival.number - denseCheckpoints
            if leaving > 1, leaving % denseCheckpoints != 0 {
                try tx.deleteRow(withKey: .integer(leaving), schema: schema)
            }
        }
        arrival.filters.recorded(arrival)
    }

    /// The latest arrival every state row stamped at or before which `peer` has; nil when
    /// there is none (a new peer, or one behind every checkpoint kept): the export then reads
    /// every state. Covers only grow from one checkpoint to the next, so the checkpoints the
    /// peer covers come first: a binary search over their numbers finds the last of them in
    /// a dozen reads however many there are (one, for a peer that has everything).
    static func lastCovered(by peer: VersionVector, in store: Store, sites: SiteTable) throws -> Int64? {
        /// The latest checkpoint, or (`from`) the first numbered at least `from`: either is
        /// one step of the key's order, on every engine.
        func checkpoint(from number: Int64?) throws -> (number: Int64, covered: Bool)? {
            let row =
                if let number {
                    try store.storedRows(
                        of: schema, where: .comparison(.greaterOrEqual, .column("id"), .value(.integer(number))),
                        orderedBy: [Ordering(.column("id"))], limit: 1
                    ).first
                } else {
                    try store.storedRows(
                        of: schema, where: nil, orderedBy: [Ordering(.column("id"), ascending: false)], limit: 1
                    ).first
                }
            guard let row else { return nil }
            let (checkpoint, cover) = try Self.checkpoint(row, sites: sites)
            return (checkpoint.number, cover.entries.allSatisfy { peer.covers(site: $0.key, sequence: $0.value) })
        }
        guard let latest = try checkpoint(from: nil) else { return nil }
        if latest.covered { return latest.number }
        // Covered checkpoints come first: find the last one below the latest.
        var found: Int64?
        var low: Int64 = 0
        var high = latest.number - 1
        while low <= high {
            let middle = low + (high - low) / 2
            if let probe = try checkpoint(from: middle), probe.number <= high, probe.covered {
                found = probe.number
                low = probe.number + 1
            } else {
                // No checkpoint from `middle` to `high`, or the first of them is not covered
                // (and neither is any later one).
                high = middle - 1
            }
        }
        return found
    }

    /// Whether the store has a checkpoint (a store whose metadata predates arrivals has none).
    static func hasCheckpoint(in store: Store) throws -> Bool {
        // A writable engine prepared the log; only a read-only store may lack it.
        if store.isReadOnly, try !store.recordedSchemas().contains(where: { $0.name == entity }) { return false }
        return try store.hasRows(of: schema)
    }

    private static func checkpoint(_ row: [Value], sites: SiteTable) throws -> (ArrivalCheckpoint, VersionVector) {
        guard case .integer(let number) = row[0], case .blob(let data) = row[1], case .integer(let token) = row[2]
        else {
            throw SyncError.corrupt(.damagedMetadata, "an arrival checkpoint of the sync metadata is damaged")
        }
        var reader = ByteReader(Array(data), context: "an arrival checkpoint", isMetadata: true)
        var cover = VersionVector()
        for _ in 0..<(try reader.count(limit: reader.remaining)) {
            let site = try sites.site(number: try reader.count(limit: Int.max))
            cover[site] = try reader.varint()
        }
        return (ArrivalCheckpoint(number: number, token: token), cover)
    }

    private static func encode(_ cover: VersionVector, sites: inout SiteTable) -> Data {
        var writer = ByteWriter(capacity: 4 + cover.entries.count * 6)
        writer.append(varint: cover.entries.count)
        for site in cover.sortedSites {
            writer.append(varint: sites.number(of: site))
            writer.append(varint: cover[site])
        }
        return Data(writer.bytes)
    }
}

/// A checkpoint's name: its arrival number and its random token (two transactions that take
/// the same number, one of them rolled back, differ by their tokens).
struct ArrivalCheckpoint: Hashable, Sendable {
    var number: Int64
    var token: Int64
}

/// One transaction's arrival (see ``ArrivalLog``): the number its state rows are stamped with,
/// and the cover its checkpoint records, grown by each new version it writes.
final class Arrival {
    /// The checkpoint the transaction began from, and the one it records.
    let previous: ArrivalCheckpoint?
    let identity: ArrivalCheckpoint
    private(set) var cover: VersionVector
    /// The engine's batch filters, kept in step with the batches the transaction writes.
    let filters: BatchFilterCache

    var number: Int64 { identity.number }

    /// The arrival after `previous` (the first, numbered 1, without one).
    init(previous: ArrivalCheckpoint?, cover: VersionVector, filters: BatchFilterCache) {
        self.previous = previous
        identity = ArrivalCheckpoint(number: (previous?.number ?? 0) + 1, token: Int64.random(in: .min ... .max))
        self.cover = cover
        self.filters = filters
    }

    /// Takes a version the transaction writes into its cover.
    func note(site: UUID, sequence: UInt64) { cover.takeIn(site: site, sequence: sequence) }

    func note(_ version: ColumnVersion) { cover.takeIn(version) }

    func note(_ state: RowState) { cover.takeIn(state) }
}

extension VersionVector {
    /// Grows the vector to cover `sequence` of `site` (the unknown version of
    /// `RowMerge.unknown` needs nothing: every vector covers it); what an arrival's cover is
    /// made of.
    mutating func takeIn(site: UUID, sequence: UInt64) {
        guard site != RowMerge.unknown.site, self[site] < sequence else { return }
        self[site] = sequence
    }

    mutating func takeIn(_ version: ColumnVersion) { takeIn(site: version.site, sequence: version.sequence) }

    mutating func takeIn(_ state: RowState) {
        takeIn(state.base)
        for version in state.overrides.values { takeIn(version) }
        guard state.hasPolicyState else { return }
        for entries in state.counters.values {
            for entry in entries { takeIn(site: entry.site, sequence: entry.sequence) }
        }
        for entries in state.contributions.values {
            for entry in entries { takeIn(site: entry.site, sequence: entry.sequence) }
        }
    }
}

extension SyncEngine {
    /// Makes sure the store has an arrival checkpoint whose cover holds every version of its
    /// metadata: on first use, and again when a state table was just given its `arrival`
    /// column (a store written before arrivals, or by a version of SharkORM that dropped
    /// the column, whose states all read as stamped 0): the old checkpoints are dropped and
    /// one is made by reading every state and batch once.
    func startArrivals(restamped: Bool) throws {
        if !restamped, try ArrivalLog.hasCheckpoint(in: store) { return }
        try store.write { tx in
            // Again in the transaction: on a shared database another store may have started
            // the log since (writers take turns, so this read is current).
            if !restamped, try ArrivalLog.hasCheckpoint(in: store) { return }
            var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
            let old = try store.storedRows(of: ArrivalLog.schema, inKeyOrder: true).map(\.[0])
            var cover = VersionVector()
            for table in tables.values {
                var after: Value?
                while true {
                    let rows = try store.storedRows(of: table.schema, after: after, limit: 4096)
                    for row in rows {
                        guard case .blob(let data) = row[1] else { continue }
                        cover.takeIn(try table.decode(data, sites: sites))
                    }
                    guard rows.count == 4096 else { break }
                    after = rows[rows.count - 1][0]
                }
                for entry in try StateBatchIndex.entries(of: table.entity.name, in: store) {
                    cover.takeIn(try table.decode(entry.state, sites: sites))
                }
            }
            // Numbered after the last old checkpoint, whose token no cache holds any more.
            let previous: ArrivalCheckpoint? =
                if case .integer(let last) = old.last { ArrivalCheckpoint(number: last, token: 0) } else { nil }
            try tx.writingBookkeeping {
                for key in old { try tx.deleteRow(withKey: key, schema: ArrivalLog.schema) }
            }
            try ArrivalLog.record(
                Arrival(previous: previous, cover: cover, filters: filters), sites: &sites, in: tx)
            try tx.writingBookkeeping { try tx.commit(sites.records) }
        }
    }
}
