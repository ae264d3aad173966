import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// Replicas one migration apart: a renamed column still matches, and values for a column or
/// an entity the receiver does not have yet are kept and applied once its migration adds them.
@Suite("Sync across migrations")
struct SyncMigrationTests {
    /// The drivers whose stores reopen with other models: the files of SQLite and SQLCipher,
    /// and a PostgreSQL schema a path names.
    static let reopenedDrivers = TestDriver.persistent.map(\.conformance) + [PostgresTestServer.conformance]

    @Test(
        "values for columns and entities not here yet are kept, then applied by the migration",
        arguments: TestDriver.allCases.filter(\.isPersistent))
    func keptUntilMigration(driver: TestDriver) throws {
        let newer = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "docs", models: [SyncDocV2.self, SyncLabel.self])
        defer { newer.store.close() }
        let id = UUID.v7()
        try newer.store.commit(SyncDocV2(id: id, title: "plan", tags: "work"))
        try newer.store.commit(SyncLabel(id: "red", color: "#f00"))
        let file = try newer.exportChanges()

        let path = TemporaryPath()
        defer { path.cleanUp() }
        do {
            let store = try driver.openFile(path.path)
            defer { store.close() }
            let older = try SyncEngine(store: store, lineage: "docs", models: [SyncDocV1.self])
            let summary = try older.importChanges(from: file)
            #expect(summary.skippedEntities == ["SyncLabel"])
            #expect(summary.skippedColumns == ["SyncDoc.tags"])
            // The renamed column matched: the older app sees the title as its heading.
            #expect(try store.find(SyncDocV1.self, id: id)?.heading == "plan")
            // It does not claim what it could not apply: the newer replica's changes come again.
            #expect(try older.versionVector()[newer.site] == 0)
        }
        // The app updates: the migration adds the column and the entity, and what was kept applies.
        let store = try driver.openFile(path.path)
        defer { store.close() }
        _ = try SyncEngine(store: store, lineage: "docs", models: [SyncDocV2.self, SyncLabel.self])
        let doc = try #require(try store.find(SyncDocV2.self, id: id))
        #expect(doc.title == "plan" && doc.tags == "work")
        #expect(try store.find(SyncLabel.self, id: "red")?.color == "#f00")
    }

    @Test(
        "a replica a migration behind receives a chain of files once, and its migration claims them",
        arguments: Self.reopenedDrivers)
    func receivedUntilMigration(driver: ConformanceDriver) throws {
        let newer = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "docs", models: [SyncDocV2.self, SyncLabel.self])
        defer { newer.store.close() }
        // Files as a hub holds them: each since the one before. The second carries only a
        // column the older app has, yet continues the first's changes, which it cannot claim.
        let id = UUID.v7()
        let doc = SyncDocV2(id: id, title: "plan", tags: "work")
        try newer.store.commit(doc)
        try newer.store.commit(SyncLabel(id: "red", color: "#f00"))
        let first = try newer.exportChanges()
        let afterFirst = try newer.versionVector()
        doc.title = "plan, revised"
        try newer.store.commit(doc)
        let second = try newer.exportChanges(since: afterFirst)
        let afterSecond = try newer.versionVector()
        doc.tags = "work, urgent"
        try newer.store.commit(doc)
        let third = try newer.exportChanges(since: afterSecond)

        let path = TemporaryPath()
        defer { path.cleanUp() }
        do {
            let store = try driver.openFile(path.path)
            defer { store.close() }
            let older = try SyncEngine(store: store, lineage: "docs", models: [SyncDocV1.self])
            try older.importChanges(from: first)
            // A file that skips one does not continue the chain: received stays at the first.
            try older.importChanges(from: third)
            #expect(try older.versionVector()[newer.site] == 0)
            #expect(try older.receivedVector()[newer.site] == afterFirst[newer.site])
            try older.importChanges(from: second)
            try older.importChanges(from: third)
            #expect(try older.versionVector()[newer.site] == 0)
            #expect(try older.receivedVector() == (try newer.versionVector()))
            #expect(try store.find(SyncDocV1.self, id: id)?.heading == "plan, revised")
            // A peer exporting since what it received sends no row again.
            let none = try ChangeLogContents(reading: try newer.exportChanges(since: try older.receivedVector()))
            #expect(none.rowCount == 0)
        }
        // Half the migration: the column comes, the entity not yet; the label's site stays unclaimed.
        do {
            let store = try driver.openFile(path.path)
            defer { store.close() }
            let half = try SyncEngine(store: store, lineage: "docs", models: [SyncDocV2.self])
            #expect(try store.find(SyncDocV2.self, id: id)?.tags == "work, urgent")
            #expect(try half.versionVector()[newer.site] == 0)
            #expect(try half.receivedVector() == (try newer.versionVector()))
        }
        let store = try driver.openFile(path.path)
        defer { store.close() }
        let migrated = try SyncEngine(store: store, lineage: "docs", models: [SyncDocV2.self, SyncLabel.self])
        #expect(try store.find(SyncLabel.self, id: "red")?.color == "#f00")
        #expect(try migrated.versionVector() == (try newer.versionVector()))
        #expect(try migrated.receivedVector() == (try migrated.versionVector()))
        #expect(try migrated.digest() == (try newer.digest()))
    }

    @Test(
        "values kept for a column that a later migration renamed apply to it under its new name",
        arguments: Self.reopenedDrivers)
    func keptForRenamedColumn(driver: ConformanceDriver) throws {
        let newer = try SyncEngine(store: try TestDriver.memory.makeStore(), lineage: "docs", models: [SyncDocV2.self])
        defer { newer.store.close() }
        let id = UUID.v7()
        try newer.store.commit(SyncDocV2(id: id, title: "plan", tags: "work"))
        let path = TemporaryPath()
        defer { path.cleanUp() }
        do {
            let store = try driver.openFile(path.path)
            defer { store.close() }
            let older = try SyncEngine(store: store, lineage: "docs", models: [SyncDocV1.self])
            #expect(try older.importChanges(from: try newer.exportChanges()).skippedColumns == ["SyncDoc.tags"])
        }
        // The app skips a version: the column comes already renamed.
        let store = try driver.openFile(path.path)
        defer { store.close() }
        let updated = try SyncEngine(store: store, lineage: "docs", models: [SyncDocV3.self])
        let doc = try #require(try store.find(SyncDocV3.self, id: id))
        #expect(doc.title == "plan" && doc.labels == "work")
        #expect(try updated.versionVector() == (try newer.versionVector()))
        #expect(try updated.receivedVector() == (try updated.versionVector()))
    }

    @Test("kept rows note every site merged into them, and the sites of resolver values a merge dropped")
    func keptRowSites() throws {
        let one = UUID()
        let two = UUID()
        func version(_ site: UUID, _ sequence: UInt64) -> ColumnVersion {
            ColumnVersion(causalLength: 1, timestamp: sequence, site: site, sequence: sequence)
        }
        func title(_ contributions: [(UUID, UInt64)], _ text: String) -> PendingRow {
            var row = PendingRow(causalLength: 1, removal: nil)
            let last = contributions.last!
            row.values["title"] = (
                version(last.0, last.1),
                ResolvedValue.encode(contributions.map { Contribution(site: $0.0, sequence: $0.1) }, value: .text(text))
            )
            row.rules["title"] = MergeRule(rawValue: "resolver:longer-title")
            return row
        }
        // One value that includes the other's writes replaces it: nothing lost.
        var sequential = title([(one, 4)], "a")
        sequential.merge(title([(one, 4), (two, 6)], "ab"))
        #expect(sequential.lost.isEmpty)
        // Concurrent values only the app's resolver could join: keeping one loses the other.
        var concurrent = title([(one, 4)], "a")
        concurrent.merge(title([(two, 6)], "b"))
        #expect(concurrent.lost == [one, two])
        let decoded = try PendingRow(decoding: concurrent.encoded())
        #expect(decoded.lost == [one, two] && decoded.sites.isSuperset(of: [one, two]))
        // A row of an entity not here with no column but its key keeps no value, yet its site.
        let row = RowChange(key: .text("k"), causalLength: 1, versions: [version(one, 2)], values: [])
        let keyOnly = PendingRow(row, names: [], columnRules: [], keeping: { _ in true })
        #expect(try PendingRow(decoding: keyOnly.encoded()).sites == [one])
    }

    @Test("a replica a migration behind sends its renamed column under the old name, and it matches")
    func olderSender() throws {
        let older = try SyncEngine(store: try TestDriver.memory.makeStore(), lineage: "docs", models: [SyncDocV1.self])
        let newer = try SyncEngine(store: try TestDriver.memory.makeStore(), lineage: "docs", models: [SyncDocV2.self])
        defer {
            older.store.close()
            newer.store.close()
        }
        let id = UUID.v7()
        try older.store.commit(SyncDocV1(id: id, heading: "from the old app"))
        let summary = try newer.importChanges(from: try older.exportChanges())
        #expect(summary.skippedColumns.isEmpty)
        #expect(try newer.store.find(SyncDocV2.self, id: id)?.title == "from the old app")
        #expect(try newer.versionVector()[older.site] == 1)
    }

    @Test(
        "a column added by a migration takes the values replicas wrote for it, whatever the row's later writes",
        arguments: TestDriver.allCases.filter(\.isPersistent))
    func addedColumnAfterLaterWrites(driver: TestDriver) throws {
        let newer = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "docs", models: [SyncDocV2.self])
        defer { newer.store.close() }
        let id = UUID.v7()
        let doc = SyncDocV2(id: id, title: "plan", tags: "")
        try newer.store.commit(doc)

        let path = TemporaryPath()
        defer { path.cleanUp() }
        do {
            let store = try driver.openFile(path.path)
            defer { store.close() }
            let older = try SyncEngine(store: store, lineage: "docs", models: [SyncDocV1.self])
            try older.importChanges(from: try newer.exportChanges())
            // The newer replica tags the document; then the older one, later, rewrites every
            // column it knows (its base version now postdates the tag).
            doc.tags = "work"
            try newer.store.commit(doc)
            let old = try #require(try store.find(SyncDocV1.self, id: id))
            old.heading = "plan, revised"
            try store.commit(old)
            try older.importChanges(from: try newer.exportChanges(since: try older.versionVector()))
            try newer.importChanges(from: try older.exportChanges(since: try newer.versionVector()))
        }
        let store = try driver.openFile(path.path)
        defer { store.close() }
        let migrated = try SyncEngine(store: store, lineage: "docs", models: [SyncDocV2.self])
        try newer.importChanges(from: try migrated.exportChanges(since: try newer.versionVector()))
        try migrated.importChanges(from: try newer.exportChanges(since: try migrated.versionVector()))
        let here = try #require(try store.find(SyncDocV2.self, id: id))
        let there = try #require(try newer.store.find(SyncDocV2.self, id: id))
        #expect(here.tags == "work" && there.tags == "work")
        #expect(here.title == "plan, revised" && there.title == "plan, revised")
    }
}

/// A row removed while no engine watched, then inserted again under the same key, is recorded
/// twice (its old state stays, and the insert is batched): folding and export resolve the
/// records in order, as the insert applied to the old state.
@Suite("Sync after removals it did not see")
struct UncapturedRemovalTests {
    private static let site = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!

    private static func engine(_ store: Store) throws -> SyncEngine {
        try SyncEngine(
            store: store, lineage: "uncaptured", models: [SyncNote.self, SyncFolder.self],
            options: SyncOptions(site: site))
    }

    @Test(
        "batched twice, or batched over a state row: export and the next update agree with a peer",
        arguments: TestDriver.persistent)
    func recordedTwice(driver: TestDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let peer = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "uncaptured", models: [SyncNote.self, SyncFolder.self])
        defer { peer.store.close() }

        // Inserts of `folders` with the same others each time, enough to make a batch (fewer
        // rows get state rows).
        let others = RowStateTable.smallestBatch - 1
        func inBulk(_ folders: [SyncFolder], _ name: String) -> [SyncFolder] {
            folders + (0..<others).map { SyncFolder(id: "other \($0)", name: name) }
        }
        var store = try driver.openFile(file.path)
        var sync = try Self.engine(store)
        try store.commit(SyncFolder(id: "folded", name: "one"))  // a state row
        let folded = try #require(try store.find(SyncFolder.self, id: "folded"))
        folded.name = "two"
        try store.commit(folded)
        try store.commit(inBulk([SyncFolder(id: "batched", name: "one")], "one"))  // a batch
        try peer.importChanges(from: try sync.exportChanges())
        store.close()

        // No engine: the removals are not captured.
        store = try driver.openFile(file.path)
        try SyncFolder.query(in: store).removeAll()
        store.close()

        store = try driver.openFile(file.path)
        sync = try Self.engine(store)
        defer { store.close() }
        // Inserted again: batched, though each key has a state already.
        try store.commit(
            inBulk([SyncFolder(id: "batched", name: "three"), SyncFolder(id: "folded", name: "three")], "three"))
        let contents = try ChangeLogContents(reading: try sync.exportChanges())
        let rows = contents.entities.flatMap(\.rows)
        // Two live records of a key may both go: they merge alike.
        #expect(Set(rows.map(\.key)).count == RowStateTable.smallestBatch + 1)
        #expect(rows.allSatisfy { !$0.isRemoval })
        try peer.importChanges(from: try sync.exportChanges())
        #expect(try syncedContents(peer.store) == syncedContents(store))

        // The next update folds the overlapping records of its key without tripping over
        // them; the other key stays batched until its own update.
        for (id, name) in [("batched", "four"), ("folded", "five")] {
            let again = try #require(try store.find(SyncFolder.self, id: id))
            again.name = name
            try store.commit(again)
            try peer.importChanges(from: try sync.exportChanges(since: try peer.versionVector()))
            #expect(try syncedContents(peer.store) == syncedContents(store))
            // Two batches: the first insert's (1 + others keys), the second's (2 + others).
            let batched = try SyncStateBatchRecord.query(in: store).fetch().flatMap { try $0.decodedKeys() }
            #expect(batched.count == 2 * others + (id == "batched" ? 1 : 0))
        }
    }
}
