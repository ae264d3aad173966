import Foundation
@_spi(SharkReplication) import SharkORM
import Synchronization

/// The batch index's filters (see ``StateBatchIndex``), kept in memory between commits: a
/// commit that changes rows checks its keys against every batch of their entity, and reading
/// every entry for each commit made each update after a million inserts read a megabyte or
/// more. Read once, they are checked in memory (two bytes per batched key) and kept in step
/// with what this engine's own transactions write.
///
/// What makes them safe to reuse is the arrival log (``ArrivalLog``): every transaction that
/// writes or removes batches records a checkpoint, named by its number and a random token.
/// The filters are labelled with the checkpoint at which they are the store's, and are used
/// only by a transaction that begins from that checkpoint (or, within it, by the transaction
/// that labelled them). Another process's commit, a rolled-back transaction, or another
/// engine on the same store all leave a latest checkpoint with another label, and the filters
/// are read again.
final class BatchFilterCache: Sendable {
    struct Entry {
        let id: Int64
        /// Nil for an entry whose filter cannot be read: the batch may hold any key.
        let filter: KeyFilter?
    }

    private struct Contents {
        var checkpoint: ArrivalCheckpoint
        /// Each entity's entries in the order the batches were written; an entity absent
        /// here is read from the store when first asked for.
        var entries: [String: [Entry]] = [:]
    }

    private let contents = Mutex<Contents?>(nil)

    /// How many times an entity's filters were read from the store (what the tests of their
    /// reuse count).
    let reads = Atomic<Int>(0)

    /// The ids of `entity`'s batches that may hold one of `keys`, in the order they were
    /// written, for the transaction of `arrival`.
    func candidates(of entity: String, holding keys: [Value], at arrival: Arrival, in store: Store) throws
        -> [Int64]
    {
        let hashes = keys.map(KeyFilter.hashes(of:))
        return try entries(of: entity, at: arrival, in: store).compactMap { entry in
            guard let filter = entry.filter else { return entry.id }
            return hashes.contains(where: filter.mayContain(hashes:)) ? entry.id : nil
        }
    }

    /// Starts with no filter for `entities`, which have no batch at `checkpoint`: the batches
    /// this engine writes from then on are noted as they are written, so the first commit that
    /// changes rows after a bulk insert reads no filter (unless another engine or process wrote
    /// meanwhile, which leaves another checkpoint). Filters already read are kept.
    func start(withNoBatchesOf entities: [String], at checkpoint: ArrivalCheckpoint) {
        contents.withLock { contents in
            guard contents == nil else { return }
            contents = Contents(
                checkpoint: checkpoint, entries: Dictionary(uniqueKeysWithValues: entities.map { ($0, []) }))
        }
    }

    /// Notes a batch the transaction of `arrival` wrote.
    func added(id: Int64, entity: String, filter: KeyFilter, at arrival: Arrival) {
        change(at: arrival) { entries in
            entries[entity]?.append(Entry(id: id, filter: filter))
        }
    }

    /// Notes the new filter of a batch that keys left, in the transaction of `arrival`.
    func replaced(id: Int64, entity: String, filter: KeyFilter, at arrival: Arrival) {
        change(at: arrival) { entries in
            guard let position = entries[entity]?.firstIndex(where: { $0.id == id }) else { return }
            entries[entity]![position] = Entry(id: id, filter: filter)
        }
    }

    /// Notes a batch the transaction of `arrival` removed.
    func removed(id: Int64, entity: String, at arrival: Arrival) {
        change(at: arrival) { entries in
            entries[entity]?.removeAll { $0.id == id }
        }
    }

    /// Labels the filters with `arrival`'s checkpoint once it is recorded, when they were the
    /// store's at the checkpoint it began from.
    func recorded(_ arrival: Arrival) {
        contents.withLock { contents in
            if contents?.checkpoint == arrival.previous { contents?.checkpoint = arrival.identity }
        }
    }

    private func entries(of entity: String, at arrival: Arrival, in store: Store) throws -> [Entry] {
        let cached = contents.withLock { contents -> [Entry]? in
            guard let contents, contents.checkpoint == arrival.previous || contents.checkpoint == arrival.identity
            else { return nil }
            return contents.entries[entity]
        }
        if let cached { return cached }
        // Read in the transaction: what it wrote so far is in them, so they are labelled with
        // its checkpoint (a rollback leaves the store at another, and they are read again).
        let read = try StateBatchIndex.entries(of: entity, in: store).map { Entry(id: $0.id, filter: $0.filter) }
        reads.add(1, ordering: .relaxed)
        contents.withLock { contents in
            if contents == nil
                || !(contents!.checkpoint == arrival.previous || contents!.checkpoint == arrival.identity)
            {
                contents = Contents(checkpoint: arrival.identity)
            }
            contents!.checkpoint = arrival.identity
            contents!.entries[entity] = read
        }
        return read
    }

    /// Applies a change of the transaction of `arrival` to filters that were current when it
    /// began (any others are dropped: they are read again).
    private func change(at arrival: Arrival, _ body: (inout [String: [Entry]]) -> Void) {
        contents.withLock { contents in
            guard let current = contents,
                current.checkpoint == arrival.previous || current.checkpoint == arrival.identity
            else {
                contents = nil
                return
            }
            contents!.checkpoint = arrival.identity
            body(&contents!.entries)
        }
    }
}

extension SyncEngine {
    /// Tells the filters which entities have no batch when the engine opens, in a transaction
    /// so that no other writer comes between the checkpoint and what the index holds. An
    /// entity that has batches has its filters read by the first commit that needs them.
    func startFilters() throws {
        try store.write { tx in
            guard let latest = try ArrivalLog.latest(in: tx.store) else { return }
            let empty = try tables.keys.filter { try !StateBatchIndex.hasEntries(of: $0, in: tx.store) }
            filters.start(withNoBatchesOf: empty, at: latest)
        }
    }
}
