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
        try syncReplica(driver, site: number, lineage: "policies", models: models)
    }

    private static func exchange(_ a: SyncEngine, _ b: SyncEngine) throws { try exchangeChanges(a, b) }

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

    @Test("a total that reached a replica inside another's file still reaches a peer that lacks it")
    func totalsThroughThirdReplica() throws {
        let engines = try (1...5).map { try Self.replica(.memory, site: $0) }
        defer { for engine in engines { engine.store.close() } }
        let (a, b, c, d, p) = (engines[0], engines[1], engines[2], engines[3], engines[4])
        try a.store.commit(SyncScore(id: "s"))
        let seed = try a.exportChanges()
        for engine in engines.dropFirst() { try engine.importChanges(from: seed) }
        // A and B add one each, unaware of the other.
        for engine in [a, b] {
            let score = try Self.score(engine)
            score.likes += 1
            try engine.store.commit(score)
        }
        // D hears of both; C only of D; P only of B.
        try d.importChanges(from: try a.exportChanges(since: try d.versionVector()))
        try d.importChanges(from: try b.exportChanges(since: try d.versionVector()))
        try c.importChanges(from: try d.exportChanges(since: try c.versionVector()))
        try p.importChanges(from: try b.exportChanges(since: try p.versionVector()))
        #expect(try Self.score(c).likes == 2)
        // C's export since P's vector must carry A's total, which P lacks.
        try p.importChanges(from: try c.exportChanges(since: try p.versionVector()))
        #expect(try Self.score(p).likes == 2)
        #expect(try p.digest() == c.digest())
    }

    @Test("a row stored before sync, a policy declared later: what the row holds is a baseline, not an addition")
    func baselines() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        // The rows exist before sync, and before their columns had policies.
        var store = try TestDriver.sqlite.openFile(file.path)
        let before = SyncScoreWithoutPolicies(id: "old")
        before.likes = 10
        before.best = 5
        try store.commit(before)
        var plain: SyncEngine? = try SyncEngine(
            store: store, lineage: "policies", models: [SyncScoreWithoutPolicies.self],
            options: SyncOptions(site: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!))
        // And one synced while its columns merged by last-writer-wins.
        let synced = SyncScoreWithoutPolicies(id: "synced")
        synced.likes = 20
        synced.best = 8
        try store.commit(synced)
        _ = plain
        plain = nil
        store.close()
        // Reopened with the policies: the counter starts from 10, the maximum from 5.
        store = try TestDriver.sqlite.openFile(file.path)
        let a = try SyncEngine(
            store: store, lineage: "policies", models: [SyncScore.self],
            options: SyncOptions(site: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!))
        defer { a.store.close() }
        let score = try Self.score(a, "old")
        score.likes += 1
        try a.store.commit(score)
        #expect(try Self.score(a, "old").likes == 11)
        let lowered = try Self.score(a, "old")
        lowered.best = 4
        #expect(throws: SyncError.self) { try a.store.commit(lowered) }
        let b = try Self.replica(.memory, site: 2)
        defer { b.store.close() }
        try b.importChanges(from: try a.exportChanges())
        #expect(try Self.score(b, "old").likes == 11)
        // The row synced before the rule: its baselines travel with it, untouched since.
        #expect(try Self.score(a, "synced").likes == 20)
        #expect(try Self.score(b, "synced").likes == 20)
        #expect(try Self.score(b, "synced").best == 8)
        let again = try Self.score(b, "synced")
        again.likes += 1
        try b.store.commit(again)
        try a.importChanges(from: try b.exportChanges(since: try a.versionVector()))
        #expect(try Self.score(a, "synced").likes == 21)
        #expect(try a.digest() == b.digest())

        // A row stored before sync was enabled on a store whose models already had policies.
        let fresh = try TestDriver.memory.makeStore()
        let seeded = SyncScore(id: "seeded")
        seeded.likes = 7
        try fresh.commit(seeded)
        let c = try SyncEngine(
            store: fresh, lineage: "policies", models: [SyncScore.self],
            options: SyncOptions(site: UUID(uuidString: "00000000-0000-0000-0000-000000000003")!))
        defer { c.store.close() }
        let touched = try Self.score(c, "seeded")
        touched.title = "edited"
        try c.store.commit(touched)
        let more = try Self.score(c, "seeded")
        more.likes += 2
        try c.store.commit(more)
        try b.importChanges(from: try c.exportChanges())
        #expect(try Self.score(b, "seeded").likes == 9)
    }

    @Test("values kept pending under a rule merge by it, and apply once the replica has the rule")
    func pendingByRule() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let a = try Self.replica(.memory, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncScore(id: "s"))
        try b.importChanges(from: try a.exportChanges())
        let options = SyncOptions(site: UUID(uuidString: "00000000-0000-0000-0000-000000000009")!)
        var store = try TestDriver.sqlite.openFile(file.path)
        var old: SyncEngine? = try SyncEngine(
            store: store, lineage: "policies", models: [SyncScoreWithoutPolicies.self], options: options)
        try old!.importChanges(from: try a.exportChanges())
        // A and B each add to the counter; the old replica keeps both totals pending.
        for (engine, step) in [(a, 3), (b, 4)] {
            let score = try Self.score(engine)
            score.likes += step
            score.best = Double(step)
            try engine.store.commit(score)
        }
        try old!.importChanges(from: try a.exportChanges())
        try old!.importChanges(from: try b.exportChanges())
        old = nil
        store.close()
        // Upgraded: the kept totals merge as a counter would have.
        store = try TestDriver.sqlite.openFile(file.path)
        let upgraded = try SyncEngine(store: store, lineage: "policies", models: [SyncScore.self], options: options)
        defer { upgraded.store.close() }
        #expect(try Self.score(upgraded).likes == 7)
        #expect(try Self.score(upgraded).best == 4)
    }

    @Test("a policy the column cannot hold is refused")
    func refused() throws {
        #expect(throws: SyncError.self) {
            _ = try Self.replica(.memory, site: 1, models: [SyncOptionalCounter.self])
        }
    }
}
