import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// The index that lets a commit find the batches holding its keys without reading every
/// batch's keys.
@Suite("Sync: the index of state batches")
struct SyncBatchIndexTests {
    @Test("a filter never misses a key it holds, and rarely claims one it does not")
    func filterHoldsItsKeys() {
        var random = SeededGenerator(state: 2026_11_27)
        for count in [0, 1, 17, 4_096] {
            let keys = (0..<count).map { _ in
                Value.blob(Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }))
            }
            let filter = KeyFilter(keys: keys)
            #expect(keys.allSatisfy(filter.mayContain))
            let decoded = KeyFilter(encoded: filter.encoded)
            #expect(decoded?.words == filter.words)
            let strangers = (0..<10_000).map { Value.text("stranger \($0)") }
            let claimed = strangers.filter(filter.mayContain).count
            #expect(claimed <= (count == 0 ? 0 : 30), "\(claimed) false claims of 10,000 for \(count) keys")
        }
        #expect(KeyFilter(encoded: Data()) == nil)
        #expect(KeyFilter(encoded: Data([1, 2, 3])) == nil)
    }

    @Test("a key's hashes are FNV-1a over its tagged bytes: filters stored by an earlier build stay valid")
    func hashesAreStable() {
        // Worked out by hand from the definition (FNV-1a, then splitmix64's finalizer, odd).
        let blob = KeyFilter.hashes(of: .blob(Data(0..<16)))
        #expect(blob.first == 0x780a_9acc_5b17_44d3 && blob.step == 0x35d6_0083_15e0_c4cd)
        let text = KeyFilter.hashes(of: .text("folder 12"))
        #expect(text.first == 0xf407_3de4_b67f_59cd && text.step == 0xf7b0_2dd8_623a_03b3)
    }

    @Test("a batch's bytes tell the keys it may hold without decoding them")
    func batchBytesHoldKeys() throws {
        let ids = (0..<300).map { _ in UUID().columnValue }
        let record = SyncStateBatchRecord(entity: "SyncNote", state: Data(), keys: SyncStateBatchRecord.encode(ids))
        #expect(ids.allSatisfy { record.mayHold([SyncStateBatchRecord.encode(key: $0)]) })
        let strangers = (0..<300).map { _ in UUID().columnValue }
        #expect(strangers.filter { record.mayHold([SyncStateBatchRecord.encode(key: $0)]) }.isEmpty)
        let texts: [Value] = ["a", "b", "folder 12"]
        let named = SyncStateBatchRecord(entity: "SyncFolder", state: Data(), keys: SyncStateBatchRecord.encode(texts))
        #expect(named.mayHold([SyncStateBatchRecord.encode(key: "folder 12")]))
        #expect(!named.mayHold([SyncStateBatchRecord.encode(key: "folder 1"), SyncStateBatchRecord.encode(key: "c")]))
        #expect(!named.mayHold([]))
    }

    @Test(
        "batches written before the index get their entries when a writable engine opens",
        arguments: TestDriver.allCases)
    func missingEntriesAreWritten(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        var options = SyncOptions(site: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
        options.now = { 1_700_000_000_000 }
        _ = try SyncEngine(store: store, lineage: "tests", models: [SyncNote.self, SyncFolder.self], options: options)
        let notes = (0..<5_000).map { SyncNote(title: "note \($0)") }
        try store.commit(notes)
        let filters = try store.fetchRows(of: StateBatchIndex.entity)
        #expect(filters.count == 2)
        // As a store written before the index existed: batches without entries.
        try store.write { tx in
            for row in filters { try tx.deleteRow(withKey: row.values[0], from: StateBatchIndex.entity) }
        }
        let engine = try SyncEngine(
            store: store, lineage: "tests", models: [SyncNote.self, SyncFolder.self], options: options)
        // The same entries, but for their arrival: unknown for batches older than the index (0).
        let backfilled = try store.fetchRows(of: StateBatchIndex.entity)
        #expect(backfilled.map { $0.values.dropLast() } == filters.map { $0.values.dropLast() })
        #expect(backfilled.allSatisfy { $0["arrival"] == .integer(0) })
        // An edit finds its batch through the index: one key leaves it, the rest stay.
        notes[4_500].title = "edited"
        try store.commit(notes[4_500])
        #expect(try store.fetchRows(of: "SharkSyncState_SyncNote").count == 1)
        #expect(try store.fetchRows(of: "SharkSyncStateBatch").count == 2)
        let peer = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "tests", models: [SyncNote.self, SyncFolder.self])
        defer { peer.store.close() }
        try peer.importChanges(from: try engine.exportChanges())
        #expect(try peer.store.find(SyncNote.self, id: notes[4_500].id)?.title == "edited")
        #expect(try syncedContents(peer.store) == syncedContents(store))
    }
}
