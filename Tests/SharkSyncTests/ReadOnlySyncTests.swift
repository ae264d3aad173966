import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// A sync engine on a store opened read-only.
@Suite("Sync on read-only stores")
struct ReadOnlySyncTests {
    @Test("sync exports from a read-only store what it exports from a writable one", arguments: TestDriver.persistent)
    func syncExport(driver: TestDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let writable = try driver.openFile(file.path)
        let sync = try SyncEngine(store: writable, lineage: "read-only", models: [SyncNote.self, SyncFolder.self])
        try writable.commit([SyncNote(title: "one"), SyncNote(title: "two")])
        let everything = try sync.exportChanges()
        let expected = try ChangeLogContents(reading: everything)
        writable.close()
        let before = try ReadOnlyStoreTests.diskState(file.path)

        let store = try driver.openFileReadOnly(file.path)
        let reading = try SyncEngine(recordedIn: store)
        #expect(reading.site == sync.site)
        #expect(try reading.versionVector() == expected.vector)
        let exported = try ChangeLogContents(reading: try reading.exportChanges())
        #expect(exported.rowCount == expected.rowCount)
        #expect(exported.vector == expected.vector)
        do {
            _ = try reading.importChanges(from: everything)
            Issue.record("a read-only store imported")
        } catch SharkError.readOnly {
        } catch { Issue.record("not a read-only error: \(error)") }
        store.close()
        #expect(try ReadOnlyStoreTests.diskState(file.path) == before)
    }

    @Test(
        "a read-only store whose sync metadata predates arrivals exports as it did",
        arguments: TestDriver.persistent)
    func metadataBeforeArrivals(driver: TestDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let writable = try driver.openFile(file.path)
        let sync = try SyncEngine(store: writable, lineage: "read-only", models: [SyncNote.self, SyncFolder.self])
        let notes = (0..<RowStateTable.smallestBatch).map { SyncNote(title: "note \($0)") }
        try writable.commit(notes)  // a batch
        notes[3].stars = 3
        try writable.commit(notes[3])  // a state row
        let expected = try ChangeLogContents(reading: try sync.exportChanges())
        try writeMetadataAsBeforeArrivals(writable)
        writable.close()

        let store = try driver.openFileReadOnly(file.path)
        defer { store.close() }
        let reading = try SyncEngine(recordedIn: store)
        let exported = try ChangeLogContents(reading: try reading.exportChanges())
        #expect(exported.rowCount == expected.rowCount)
        #expect(exported.vector == expected.vector)
        let since = try ChangeLogContents(reading: try reading.exportChanges(since: expected.vector))
        #expect(since.rowCount == 0)
    }
}
