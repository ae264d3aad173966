import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSync
import SharkTestSupport
import Testing

@testable import SharkDriverConformance

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
}
