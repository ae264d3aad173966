import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// Merge policies: counters whose concurrent increments all count, maxima and minima that
/// keep the extreme, on every driver; what a replica with other rules does with their values.
@Suite("Sync: merge policies")
struct SyncPolicyTests {
    private static func replica(_ driver: TestDriver, site number: Int, models: [any Model.Type] = [SyncScore.self])
        throws -> SyncEngine
    {
        let options = SyncOptions(site: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", number))!)
        return try SyncEngine(store: try driver.makeStore(), lineage: "policies", models: models, options: options)
    }

    /// Each replica sends the other what it lacks.
    private static func exchange(_ a: SyncEngine, _ b: SyncEngine) throws {
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        try a.importChanges(from: try b.exportChanges(since: try a.versionVector()))
    }

    private static func score(_ engine: SyncEngine, _ id: String = "s") throws -> SyncScore {
        try #require(try engine.store.find(SyncScore.self, id: id))
    }

    @Test(
        "concurrent increments all count; a reset is a difference, so an increment elsewhere survives it",
        arguments: TestDriver.allCases)
    func counters(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncScore(id: "s"))
        try Self.exchange(a, b)

        let mine = try Self.score(a)
        mine.likes += 3
        try a.store.commit(mine)
        let theirs = try Self.score(b)
        theirs.likes += 2
        try b.store.commit(theirs)
        // An expression counts as what it changed, too.
        try SyncScore.query(in: b.store).where(\.id == "s").updateAll(.set(\.likes, to: \.likes + 10))
        try Self.exchange(a, b)
        #expect(try Self.score(a).likes == 15)
        #expect(try Self.score(b).likes == 15)
        #expect(try a.digest() == b.digest())

        // A reset to 0 here while the other adds 1: the reset takes away the 15 it saw.
        let reset = try Self.score(a)
        reset.likes = 0
        try a.store.commit(reset)
        let more = try Self.score(b)
        more.likes += 1
        try b.store.commit(more)
        try Self.exchange(a, b)
        #expect(try Self.score(a).likes == 1)
        #expect(try Self.score(b).likes == 1)

        // A removal ends the totals: the row inserted again counts from its new value.
        try a.store.remove(try Self.score(a))
        try Self.exchange(a, b)
        let again = SyncScore(id: "s")
        again.likes = 4
        try b.store.commit(again)
        try Self.exchange(a, b)
        #expect(try Self.score(a).likes == 4)
        #expect(try a.digest() == b.digest())
    }

    @Test(
        "a maximum keeps the greatest value written, a minimum the least; a local write may not undo either",
        arguments: TestDriver.allCases)
    func extremes(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncScore(id: "s"))
        try Self.exchange(a, b)
        let mine = try Self.score(a)
        mine.best = 10
        mine.lowest = 50
        try a.store.commit(mine)
        // Later, elsewhere, a lesser best and a greater lowest: last-writer-wins would take them.
        let theirs = try Self.score(b)
        theirs.best = 7
        theirs.lowest = 80
        theirs.title = "b"
        try b.store.commit(theirs)
        try Self.exchange(a, b)
        for engine in [a, b] {
            let score = try Self.score(engine)
            #expect(score.best == 10 && score.lowest == 50 && score.title == "b")
        }

        let lowering = try Self.score(a)
        lowering.best = 9
        do {
            try a.store.commit(lowering)
            Issue.record("lowering a maximum was committed")
        } catch SyncError.mergePolicy(let detail) {
            #expect(detail.reason == .lowersMaximum)
        }
        let raising = try Self.score(a)
        raising.lowest = 60
        do {
            try a.store.commit(raising)
            Issue.record("raising a minimum was committed")
        } catch SyncError.mergePolicy(let detail) {
            #expect(detail.reason == .raisesMinimum)
        }
        let unchanged = try Self.score(a)
        #expect(unchanged.best == 10 && unchanged.lowest == 50)
        #expect(try a.digest() == b.digest())
    }

    @Test("a counter that would no longer fit 64 bits is refused, here and in a file", arguments: TestDriver.allCases)
    func overflow(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        let big = SyncScore(id: "s")
        big.likes = Int.max - 1
        try a.store.commit(big)
        try Self.exchange(a, b)
        let theirs = try Self.score(b)
        theirs.likes = Int.max  // +1 there
        try b.store.commit(theirs)
        let mine = try Self.score(a)
        mine.likes = Int.max  // +1 here: each fits, their sum does not
        try a.store.commit(mine)
        let vector = try a.versionVector()
        do {
            try a.importChanges(from: try b.exportChanges(since: vector))
            Issue.record("an overflowing counter was merged")
        } catch SyncError.mergePolicy(let detail) {
            #expect(detail.reason == .counterOverflow)
        }
        #expect(try a.versionVector() == vector)
        #expect(try Self.score(a).likes == Int.max)

        // A local difference that does not fit: from the greatest to the least.
        let swing = try Self.score(a)
        swing.likes = Int.min
        do {
            try a.store.commit(swing)
            Issue.record("an overflowing difference was committed")
        } catch SyncError.mergePolicy(let detail) {
            #expect(detail.reason == .counterOverflow)
        }
    }

    @Test("a replica merging a column by another rule keeps its values pending, and claims none of them")
    func otherRules() throws {
        let a = try Self.replica(.sqlite, site: 1)
        let b = try Self.replica(.memory, site: 2, models: [SyncScoreWithoutPolicies.self])
        defer {
            a.store.close()
            b.store.close()
        }
        let score = SyncScore(id: "s", title: "hello")
        score.likes = 3
        try a.store.commit(score)
        let file = try a.exportChanges()
        let header = try ChangeLogContents(reading: file)
        #expect(header.formatVersion == 2)
        let rules = Dictionary(uniqueKeysWithValues: header.entities[0].columns.map { ($0.name, $0.mergeRule) })
        #expect(rules == ["title": "", "likes": "counter", "best": "maximum", "lowest": "minimum"])
        let summary = try b.importChanges(from: file)
        #expect(Set(summary.skippedColumns) == ["SyncScore.likes", "SyncScore.best", "SyncScore.lowest"])
        let row = try #require(try b.store.find(SyncScoreWithoutPolicies.self, id: "s"))
        #expect(row.title == "hello" && row.likes == 0)
        #expect(try b.versionVector() != a.versionVector())
        #expect(try b.compareDigest(after: summary) == .notComparable(.schemasDiffer))
    }

    @Test("a store opened without its models merges by the rules it recorded")
    func recordedRules() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let a = try SyncEngine(
            store: try TestDriver.sqlite.openFile(file.path), lineage: "policies", models: [SyncScore.self])
        try a.store.commit(SyncScore(id: "s"))
        let b = try Self.replica(.memory, site: 2)
        defer { b.store.close() }
        try b.importChanges(from: try a.exportChanges())
        let theirs = try Self.score(b)
        theirs.likes += 5
        try b.store.commit(theirs)
        let mine = try Self.score(a)
        mine.likes += 1
        try a.store.commit(mine)
        a.store.close()

        let reopened = try SyncEngine(recordedIn: try TestDriver.sqlite.openFile(file.path))
        defer { reopened.store.close() }
        try reopened.importChanges(from: try b.exportChanges())
        let row = try #require(try reopened.store.fetchRows(of: "SyncScore").first)
        #expect(row["likes"] == .integer(6))
    }

    @Test("a policy the column cannot hold is refused")
    func refused() throws {
        #expect(throws: SyncError.self) {
            _ = try Self.replica(.memory, site: 1, models: [SyncOptionalCounter.self])
        }
    }
}
