import Foundation
import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

@Suite("Sync: the tombstone horizon")
struct SyncHorizonTests {
    private static func replica(_ driver: TestDriver, site: Int) throws -> SyncEngine {
        try syncReplica(driver, site: site, lineage: "horizon", models: [SyncNote.self, SyncFolder.self])
    }

    private static func isBelowHorizon(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch SyncError.belowHorizon {
            return true
        } catch {
            return false
        }
    }

    @Test(
        "a replica left out of a forgetting is refused both ways, catches up from a full export, and cannot bring the row back",
        arguments: TestDriver.allCases)
    func leftOut(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2)
        let c = try Self.replica(.sqlite, site: 3)
        defer { for replica in [a, b, c] { replica.store.close() } }
        try a.store.commit([SyncFolder(id: "x", name: "to be removed"), SyncFolder(id: "y", name: "kept")])
        let start = try a.exportChanges()
        try b.importChanges(from: start)
        try c.importChanges(from: start)

        // a removes x; b hears of it, c does not; a and b forget it, leaving c out.
        try a.store.remove(try #require(try a.store.find(SyncFolder.self, id: "x")))
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        let vectors = [try a.versionVector(), try b.versionVector()]
        #expect(try a.forgetTombstones(seenBy: vectors) == 1)
        #expect(try b.forgetTombstones(seenBy: vectors) == 1)

        // c edits the row it still has.
        let stale = try #require(try c.store.find(SyncFolder.self, id: "x"))
        stale.name = "edited on c"
        try c.store.commit(stale)

        // Refused both ways, and nothing changes.
        let before = try syncedContents(a.store)
        #expect(Self.isBelowHorizon { _ = try a.exportChanges(since: try c.versionVector()) })
        #expect(Self.isBelowHorizon { try a.importChanges(from: try c.exportChanges(since: try a.versionVector())) })
        #expect(try syncedContents(a.store) == before)

        // A new replica seeded from a full export has the forgotten removal and the horizon:
        // c's row cannot reach it either.
        let d = try Self.replica(.memory, site: 4)
        defer { d.store.close() }
        let full = try a.exportChanges()
        let contents = try ChangeLogContents(reading: full)
        #expect(contents.formatVersion == 2)
        #expect(contents.horizon == VersionVector.meet(vectors))
        #expect(contents.entities.contains { $0.rows.contains { $0.isRemoval && $0.key == .text("x") } })
        try d.importChanges(from: full)
        #expect(try syncedContents(d.store) == before)
        #expect(Self.isBelowHorizon { try d.importChanges(from: try c.exportChanges()) })

        // c catches up from a full export: the removal wins over its edit, and then it syncs
        // as any replica does.
        try c.importChanges(from: try a.exportChanges())
        #expect(try c.store.find(SyncFolder.self, id: "x") == nil)
        try c.store.commit(SyncFolder(id: "z", name: "new on c"))
        try a.importChanges(from: try c.exportChanges(since: try a.versionVector()))
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        try d.importChanges(from: try a.exportChanges(since: try d.versionVector()))
        let expected = try syncedContents(a.store)
        #expect(expected.contains { $0.contains("new on c") } && !expected.contains { $0.contains("edited on c") })
        for replica in [b, c, d] { #expect(try syncedContents(replica.store) == expected) }
    }

    @Test(
        "a store that never forgot writes format 1 files (but full exports) with no horizon; the horizon survives reopening",
        arguments: TestDriver.persistent)
    func formatAndPersistence(driver: TestDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        var a: SyncEngine? = try SyncEngine(
            store: try driver.openFile(file.path), lineage: "horizon", models: [SyncNote.self, SyncFolder.self])
        try a!.store.commit(SyncFolder(id: "gone", name: "soon"))
        // A full export carries a digest (format 2); one since a peer's vector is format 1.
        #expect(try ChangeLogContents(reading: try a!.exportChanges()).formatVersion == 2)
        #expect(
            try ChangeLogContents(reading: try a!.exportChanges(since: VersionVector([UUID(): 1]))).formatVersion == 1)
        try a!.store.remove(try #require(try a!.store.find(SyncFolder.self, id: "gone")))
        #expect(try a!.forgetTombstones(seenBy: [try a!.versionVector()]) == 1)
        let horizon = try ChangeLogHeader(reading: try a!.exportChanges()).horizon
        #expect(horizon == (try a!.versionVector()))
        a!.store.close()
        a = nil
        let reopened = try SyncEngine(
            store: try driver.openFile(file.path), lineage: "horizon", models: [SyncNote.self, SyncFolder.self])
        defer { reopened.store.close() }
        #expect(try ChangeLogHeader(reading: try reopened.exportChanges()).horizon == horizon)
        #expect(Self.isBelowHorizon { _ = try reopened.exportChanges(since: VersionVector([UUID(): 1])) })
    }
}
