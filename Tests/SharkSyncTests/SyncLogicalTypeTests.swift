import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// Change logs say what their columns mean (flags bit 1): a reader without the app's models
/// (`shark inspect`) shows dates as dates. Files written before carry storage classes only and
/// still read, and merge alike: merging never depends on the logical types.
@Suite("Sync: logical types in change logs")
struct SyncLogicalTypeTests {
    @Test("a change log names each column's logical type; files without them read and merge alike")
    func logicalTypes() throws {
        let source = try SyncEngine(
            store: try Store(.memory), lineage: "types", models: [SyncNote.self, SyncFolder.self])
        defer { source.store.close() }
        let note = SyncNote(title: "typed", stars: 3)
        note.score = 1.5
        note.folder = SyncFolder(id: "inbox", name: "Inbox")
        try source.store.commit(note)
        let file = try source.exportChanges()

        let contents = try ChangeLogContents(reading: file)
        #expect(contents.carriesLogicalTypes)
        let columns = try #require(contents.entities.first { $0.name == "SyncNote" }).columns
        func type(_ name: String) -> LogicalType? { columns.first { $0.name == name }?.logicalType }
        #expect(type("title") == .string)
        #expect(type("stars") == .integer)
        #expect(type("score") == .real)
        // A relationship shows as its target's key does.
        #expect(type("folder") == SyncFolder.schema.key.logicalType)

        // The same log as files were written before flags bit 1.
        let parsed = try ChangeLogReader.read(file, key: nil, limits: ChangeLogLimits())
        let older = try ChangeLogWriter.write(parsed, key: nil, includesLogicalTypes: false)
        let olderContents = try ChangeLogContents(reading: older)
        #expect(!olderContents.carriesLogicalTypes)
        #expect(olderContents.entities.allSatisfy { $0.columns.allSatisfy { $0.logicalType == nil } })
        #expect(olderContents.rowCount == contents.rowCount)

        for driver in TestDriver.allCases {
            let withTypes = try SyncEngine(
                store: try driver.makeStore(), lineage: "types", models: [SyncNote.self, SyncFolder.self])
            let without = try SyncEngine(
                store: try driver.makeStore(), lineage: "types", models: [SyncNote.self, SyncFolder.self])
            defer {
                withTypes.store.close()
                without.store.close()
            }
            try withTypes.importChanges(from: file)
            try without.importChanges(from: older)
            #expect(try syncedContents(withTypes.store) == syncedContents(without.store), "\(driver)")
            #expect(try SyncNote.query(in: without.store).fetch().map(\.folder?.name) == ["Inbox"])
        }

        // Sealed, both bits set.
        let key = ChangeLogKey.random()
        let sealed = try ChangeLogContents(reading: try source.exportChanges(key: key), key: key)
        #expect(sealed.isEncrypted && sealed.carriesLogicalTypes)

        // A bit this reader does not know is refused, as before.
        var layout = try ChangeLogLayout(file)
        layout.flags |= 1 << 3
        #expect(throws: SyncError.self) { try ChangeLogContents(reading: try layout.encoded()) }
    }
}
