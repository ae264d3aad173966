import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkTestSupport
import Synchronization
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// Exports since a peer's vector read the states written since the peer last had everything
/// (the arrival index), and commits of a few rows keep state rows rather than batches, so that
/// neither grows with the store.
@Suite("Sync: arrivals and small commits")
struct SyncArrivalTests {
    private func replica(_ driver: TestDriver, site: Int) throws -> SyncEngine {
        try replica(on: try driver.makeStore(), site: site)
    }

    private func replica(on store: Store, site: Int) throws -> SyncEngine {
        var options = SyncOptions(site: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", site))!)
        options.now = { 1_700_000_000_000 }
        return try SyncEngine(
            store: store, lineage: "tests", models: [SyncNote.self, SyncFolder.self], options: options)
    }

    /// Sends what `from` has and `to` lacks, and returns what the import did.
    @discardableResult
    private func send(_ from: SyncEngine, to: SyncEngine) throws -> SyncImportSummary {
        try to.importChanges(from: try from.exportChanges(since: try to.versionVector()))
    }

    @Test("commits of fewer rows than a batch is worth write state rows", arguments: TestDriver.allCases)
    func smallCommitsWriteStateRows(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        defer { a.store.close() }
        for number in 0..<20 { try a.store.commit(SyncNote(title: "one at a time \(number)")) }
        try a.store.commit((0..<(RowStateTable.smallestBatch - 1)).map { SyncNote(title: "some \($0)") })
        #expect(try a.store.countRows(of: SyncEngine.stateBatchEntity) == 0)
        #expect(try a.store.countRows(of: "SharkSyncState_SyncNote") == 20 + RowStateTable.smallestBatch - 1)
        try a.store.commit((0..<RowStateTable.smallestBatch).map { SyncNote(title: "many \($0)") })
        #expect(try a.store.countRows(of: SyncEngine.stateBatchEntity) == 1)
        #expect(try a.store.countRows(of: "SharkSyncState_SyncNote") == 20 + RowStateTable.smallestBatch - 1)
    }

    @Test(
        "an export since a peer's vector sends what changed since, pages of one arrival included",
        arguments: TestDriver.allCases)
    func exportSinceArrival(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        let b = try replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        let notes = (0..<5_000).map { SyncNote(title: "note \($0)", stars: $0 % 7) }
        try a.store.commit(notes)
        try send(a, to: b)
        // More states in one transaction than one page of the export holds, then single ones.
        for note in notes[..<4_500] { note.stars += 1 }
        try a.store.commit(Array(notes[..<4_500]))
        notes[4_600].title = "single"
        try a.store.commit(notes[4_600])
        try a.store.remove(notes[4_700])
        try a.store.commit(SyncNote(title: "new"))
        let summary = try send(a, to: b)
        #expect(summary.rowsApplied == 4_503)
        #expect(summary.rowsUnchanged == 0)
        #expect(try syncedContents(b.store) == syncedContents(a.store))
        // Nothing since: nothing sent.
        let again = try send(a, to: b)
        #expect(again.rowsApplied + again.rowsUnchanged == 0)
        // A change made on b goes back; a's next export to b leaves it out.
        let edited = try #require(try b.store.find(SyncNote.self, id: notes[10].id))
        edited.body = "from b"
        try b.store.commit(edited)
        #expect(try send(b, to: a).rowsApplied == 1)
        #expect(try send(a, to: b).rowsApplied == 0)
        #expect(try syncedContents(b.store) == syncedContents(a.store))
    }

    @Test("a peer behind the checkpoints kept still gets everything it lacks", arguments: TestDriver.allCases)
    func thinnedCheckpoints(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        let b = try replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        let first = SyncNote(title: "first")
        try a.store.commit(first)
        try send(a, to: b)
        let count = Int(ArrivalLog.denseCheckpoints) + 100
        for number in 0..<count { try a.store.commit(SyncNote(title: "later \(number)")) }
        first.title = "first, edited"
        try a.store.commit(first)
        #expect(try a.store.countRows(of: ArrivalLog.entity) < count)
        #expect(try send(a, to: b).rowsApplied == count + 1)
        #expect(try syncedContents(b.store) == syncedContents(a.store))
    }

    @Test("states written before arrivals get them when a writable engine opens", arguments: TestDriver.allCases)
    func statesBeforeArrivals(driver: TestDriver) throws {
        let store = try driver.makeStore()
        let b = try replica(.memory, site: 2)
        defer {
            store.close()
            b.store.close()
        }
        var a = try replica(on: store, site: 1)
        let notes = (0..<2_000).map { SyncNote(title: "note \($0)") }
        try store.commit(notes)
        for note in notes[..<10] { note.stars = 5 }
        try store.commit(Array(notes[..<10]))
        try send(a, to: b)
        try writeMetadataAsBeforeArrivals(store)
        a = try replica(on: store, site: 1)
        #expect(try store.recordedSchema(of: "SharkSyncState_SyncNote").columns.map(\.name).contains("arrival"))
        #expect(try store.countRows(of: ArrivalLog.entity) == 1)
        notes[1].title = "after"
        notes[1_500].title = "after, batched"
        try store.commit([notes[1], notes[1_500]])
        #expect(try send(a, to: b).rowsApplied == 2)
        #expect(try syncedContents(b.store) == syncedContents(store))
    }

    /// The keys of every batch of SyncNote.
    private func batchedKeys(_ store: Store) throws -> Set<RowKey> {
        Set(try SyncStateBatchRecord.query(in: store).fetch().flatMap { try $0.decodedKeys() }.map(RowKey.init))
    }

    @Test(
        "batch filters kept in memory are read again after another store's commit on the same file",
        arguments: TestDriver.persistent)
    func filtersAfterAnotherStore(driver: TestDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let first = try replica(on: try driver.openFile(file.path), site: 1)
        defer { first.store.close() }
        let mine = (0..<RowStateTable.smallestBatch).map { SyncNote(title: "mine \($0)") }
        try first.store.commit(mine)
        mine[0].stars = 1
        try first.store.commit(mine[0])  // the filters are read, and kept
        let second = try replica(on: try driver.openFile(file.path), site: 1)
        let theirs = (0..<RowStateTable.smallestBatch).map { SyncNote(title: "theirs \($0)") }
        try second.store.commit(theirs)  // a batch the first engine's filters do not have
        second.store.close()
        let edited = try #require(try first.store.find(SyncNote.self, id: theirs[7].id))
        edited.stars = 2
        try first.store.commit(edited)
        let batched = try batchedKeys(first.store)
        #expect(!batched.contains(RowKey(theirs[7].id.columnValue)))
        #expect(batched.count == 2 * RowStateTable.smallestBatch - 2)
    }

    @Test(
        "the first update after a bulk insert reads no batch filter; an engine opened later reads them once",
        arguments: TestDriver.persistent)
    func firstUpdateAfterBulkInsert(driver: TestDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let a = try replica(on: try driver.openFile(file.path), site: 1)
        let notes = (0..<(2 * RowStateTable.smallestBatch)).map { SyncNote(title: "bulk \($0)") }
        try a.store.commit(Array(notes[..<RowStateTable.smallestBatch]))
        try a.store.commit(Array(notes[RowStateTable.smallestBatch...]))
        notes[3].stars = 1
        notes[RowStateTable.smallestBatch + 3].stars = 1
        try a.store.commit([notes[3], notes[RowStateTable.smallestBatch + 3]])
        #expect(a.filters.reads.load(ordering: .relaxed) == 0)
        #expect(try batchedKeys(a.store).count == 2 * RowStateTable.smallestBatch - 2)
        a.store.close()

        let b = try replica(on: try driver.openFile(file.path), site: 1)
        defer { b.store.close() }
        for (round, note) in notes[10..<13].enumerated() {
            let edited = try #require(try b.store.find(SyncNote.self, id: note.id))
            edited.stars = round + 2
            try b.store.commit(edited)
        }
        #expect(b.filters.reads.load(ordering: .relaxed) == 1)
        #expect(try batchedKeys(b.store).count == 2 * RowStateTable.smallestBatch - 5)
        // What every replica sees: the edits, once each.
        let c = try replica(driver, site: 2)
        defer { c.store.close() }
        #expect(try send(b, to: c).rowsApplied == notes.count)
        #expect(try c.store.find(SyncNote.self, id: notes[12].id)?.stars == 4)
        #expect(try c.store.find(SyncNote.self, id: notes[RowStateTable.smallestBatch + 3].id)?.stars == 1)
    }

    @Test("batch filters kept in memory forget what a rolled-back transaction wrote", arguments: TestDriver.allCases)
    func filtersAfterRollback(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        defer { a.store.close() }
        let kept = (0..<RowStateTable.smallestBatch).map { SyncNote(title: "kept \($0)") }
        try a.store.commit(kept)
        kept[0].stars = 1
        try a.store.commit(kept[0])  // the filters are read, and kept
        // An observer after the engine's refuses the commit once capture has run: every key
        // leaves the first batch, which goes, and another batch comes; then all rolls back.
        let refusal = Refusal()
        a.store.addTransactionObserver(refusal)
        refusal.refuses.store(true, ordering: .relaxed)
        for note in kept { note.stars = 9 }
        #expect(throws: Refusal.Refused.self) {
            try a.store.write { tx in
                try tx.commit(kept)
                try tx.commit((0..<RowStateTable.smallestBatch).map { SyncNote(title: "dropped \($0)") })
            }
        }
        refusal.refuses.store(false, ordering: .relaxed)
        // A batch written now may take the number the rolled-back one had; the first batch
        // is still there.
        let later = (0..<RowStateTable.smallestBatch).map { SyncNote(title: "later \($0)") }
        try a.store.commit(later)
        later[3].stars = 2
        kept[5].stars = 2
        try a.store.commit([later[3], kept[5]])
        let batched = try batchedKeys(a.store)
        #expect(!batched.contains(RowKey(later[3].id.columnValue)))
        #expect(!batched.contains(RowKey(kept[5].id.columnValue)))
        #expect(batched.count == 2 * RowStateTable.smallestBatch - 3)
    }
}

/// Makes `store`'s sync metadata (of SyncNote and SyncFolder) what a store written before
/// arrivals holds: state tables and batch index without the `arrival` column, no checkpoint.
func writeMetadataAsBeforeArrivals(_ store: Store) throws {
    for name in ["SyncNote", "SyncFolder"] {
        try store.prepareInternal(RowStateTable(for: try store.recordedSchema(of: name), stampsArrivals: false).schema)
    }
    try store.prepareInternal(StateBatchIndex.schemaBeforeArrivals)
    try store.write { tx in
        for row in try store.fetchRows(of: ArrivalLog.entity) {
            try tx.deleteRow(withKey: row.values[0], from: ArrivalLog.entity)
        }
    }
}

/// Refuses every commit while `refuses` is set.
private final class Refusal: TransactionObserver {
    struct Refused: Error {}
    let refuses = Atomic(false)

    func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
        if refuses.load(ordering: .relaxed) { throw Refused() }
    }
}
