import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// App resolvers: concurrent values joined by the app's function, on every driver; a joined
/// value reaching peers that hold one of its inputs; writes a resolver would not keep; joins
/// that are not joins; stores without the model; renamed resolvers.
@Suite("Sync: app resolvers")
struct SyncResolverTests {
    private static func replica(
        _ driver: TestDriver, site number: Int, models: [any Model.Type] = [SyncDraft.self]
    ) throws -> SyncEngine {
        try syncReplica(driver, site: number, lineage: "resolvers", models: models)
    }

    private static func exchange(_ a: SyncEngine, _ b: SyncEngine) throws { try exchangeChanges(a, b) }

    private static func draft(_ engine: SyncEngine, _ id: String = "d") throws -> SyncDraft {
        try #require(try engine.store.find(SyncDraft.self, id: id))
    }

    @Test(
        "concurrent values join by the app's resolver; a value written after another replaces it",
        arguments: TestDriver.allCases)
    func concurrentValuesJoin(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncDraft(id: "d", title: "plan"))
        try Self.exchange(a, b)

        let mine = try Self.draft(a)
        mine.title = "a longer plan"
        mine.reviewers = ["ann"]
        mine.body = "a"
        try a.store.commit(mine)
        let theirs = try Self.draft(b)
        theirs.title = "short"
        theirs.status = .review
        theirs.reviewers = ["bob", "cy"]
        theirs.body = "b"
        try b.store.commit(theirs)
        try Self.exchange(a, b)
        for engine in [a, b] {
            let draft = try Self.draft(engine)
            #expect(draft.title == "a longer plan")
            #expect(draft.status == .review)
            #expect(draft.reviewers == ["ann", "bob", "cy"])
            #expect(draft.body == "b")
        }
        #expect(try a.digest() == b.digest())

        // Written after seeing the join: it replaces it (a shorter title, one reviewer more),
        // and a file from before it, replayed, changes nothing.
        let stale = try b.exportChanges()
        let later = try Self.draft(b)
        later.title = "plan B, which is long"
        later.reviewers = ["ann", "bob", "cy", "dee"]
        try b.store.commit(later)
        try Self.exchange(a, b)
        try a.importChanges(from: stale)
        let settled = try Self.draft(a)
        #expect(settled.title == "plan B, which is long" && settled.reviewers == ["ann", "bob", "cy", "dee"])
        #expect(try a.digest() == b.digest())

        // A removal ends the row's joins: inserted again, it starts from its new values.
        try a.store.remove(try Self.draft(a))
        try Self.exchange(a, b)
        try b.store.commit(SyncDraft(id: "d", title: "new"))
        try Self.exchange(a, b)
        #expect(try Self.draft(a).title == "new" && Self.draft(a).reviewers.isEmpty)
        #expect(try a.digest() == b.digest())
    }

    @Test("a joined value reaches a peer that already holds the greater of its inputs")
    func joinReachesPeerHoldingAnInput() throws {
        let engines = try (1...3).map { try Self.replica(.memory, site: $0) }
        defer { for engine in engines { engine.store.close() } }
        let (a, b, c) = (engines[0], engines[1], engines[2])
        try a.store.commit(SyncDraft(id: "d"))
        let seed = try a.exportChanges()
        for engine in [b, c] { try engine.importChanges(from: seed) }
        for (engine, reviewer) in [(a, "ann"), (b, "bob")] {
            let draft = try Self.draft(engine)
            draft.reviewers = [reviewer]
            try engine.store.commit(draft)
        }
        // C hears of B's reviewer; A joins both (stamped with the greater version, B's or its
        // own). A's export since C's vector must carry the join, though C has B's write.
        try c.importChanges(from: try b.exportChanges(since: try c.versionVector()))
        try a.importChanges(from: try b.exportChanges(since: try a.versionVector()))
        try c.importChanges(from: try a.exportChanges(since: try c.versionVector()))
        #expect(try Self.draft(c).reviewers == ["ann", "bob"])
        #expect(try c.digest() == a.digest())
        // And B, which has neither A's write nor the join, gets it from C.
        try b.importChanges(from: try c.exportChanges(since: try b.versionVector()))
        #expect(try Self.draft(b).reviewers == ["ann", "bob"])
        #expect(try b.digest() == a.digest())
    }

    @Test(
        "a local write the resolver would not keep against the value it replaces is refused",
        arguments: TestDriver.allCases)
    func writeNotKept(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        defer { a.store.close() }
        let draft = SyncDraft(id: "d")
        draft.status = .review
        draft.reviewers = ["ann", "bob"]
        try a.store.commit(draft)
        let backwards = try Self.draft(a)
        backwards.status = .draft
        #expect {
            try a.store.commit(backwards)
        } throws: { error in
            guard case SyncError.mergePolicy(let detail) = error else { return false }
            return detail.reason == .writeNotKept
        }
        let fewer = try Self.draft(a)
        fewer.reviewers = ["ann"]
        #expect(throws: SyncError.self) { try a.store.commit(fewer) }
        let unchanged = try Self.draft(a)
        #expect(unchanged.status == .review && unchanged.reviewers == ["ann", "bob"])
        // A longer title the resolver keeps; a shorter one it would not.
        let longer = try Self.draft(a)
        longer.title = "a title"
        try a.store.commit(longer)
        let shorter = try Self.draft(a)
        shorter.title = "a"
        #expect(throws: SyncError.self) { try a.store.commit(shorter) }
        #expect(try Self.draft(a).title == "a title")
    }

    @Test("a resolver that is not a join is caught: by checkJoin in tests, and when merging in debug builds")
    func notAJoin() throws {
        try MergePolicy.checkJoin(
            SyncDraft.mergePolicies, on: ["a", "bb", "cc", ""].map { SyncDraft(id: "x", title: $0) })
        let samples = ["a", "bb"].map {
            let draft = SyncDraftTakingIncoming(id: "x")
            draft.title = $0
            return draft
        }
        #expect {
            try MergePolicy.checkJoin(SyncDraftTakingIncoming.mergePolicies, on: samples)
        } throws: { error in
            guard case SyncError.mergePolicy(let detail) = error else { return false }
            return detail.reason == .notAJoin && detail.message.contains("commutative")
        }
        // Versions break ties only as a join allows: a joined value carries the greater
        // version, so "the longer title, of two as long the later" is not associative.
        let laterOfEqualLength = MergePolicy<SyncDraft>.resolved(\.title, as: "later-of-equal-length") { a, b in
            a.value.count != b.value.count
                ? (a.value.count > b.value.count ? a.value : b.value) : (a.version > b.version ? a.value : b.value)
        }
        #expect(throws: SyncError.self) {
            try MergePolicy.checkJoin(
                [laterOfEqualLength], on: ["a", "bb", "cc"].map { SyncDraft(id: "x", title: $0) })
        }
        let later = MergePolicy<SyncDraft>.resolved(\.title, as: "later") { a, b in
            a.version > b.version ? a.value : b.value
        }
        try MergePolicy.checkJoin([later], on: ["a", "bb", "cc"].map { SyncDraft(id: "x", title: $0) })
        #if DEBUG
            let a = try Self.replica(.sqlite, site: 1, models: [SyncDraftTakingIncoming.self])
            let b = try Self.replica(.memory, site: 2, models: [SyncDraftTakingIncoming.self])
            defer {
                a.store.close()
                b.store.close()
            }
            try a.store.commit(SyncDraftTakingIncoming(id: "d"))
            try Self.exchange(a, b)
            for (engine, title) in [(a, "one"), (b, "two")] {
                let draft = try #require(try engine.store.find(SyncDraftTakingIncoming.self, id: "d"))
                draft.title = title
                try engine.store.commit(draft)
            }
            let before = try b.versionVector()
            #expect {
                try b.importChanges(from: try a.exportChanges(since: before))
            } throws: { error in
                guard case SyncError.mergePolicy(let detail) = error else { return false }
                return detail.reason == .notAJoin
            }
            // Nothing of the file was applied.
            #expect(try b.versionVector() == before)
            #expect(try b.store.find(SyncDraftTakingIncoming.self, id: "d")?.title == "two")
        #endif
    }

    @Test("a store opened without the model refuses a file with values of a resolver's column, and applies none")
    func withoutTheModel() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let a = try SyncEngine(
            store: try TestDriver.sqlite.openFile(file.path), lineage: "resolvers", models: [SyncDraft.self])
        try a.store.commit(SyncDraft(id: "d", title: "one"))
        let b = try Self.replica(.memory, site: 2)
        defer { b.store.close() }
        try b.importChanges(from: try a.exportChanges())
        let theirs = try Self.draft(b)
        theirs.title = "two, longer"
        try b.store.commit(theirs)
        let digest = try a.digest()
        a.store.close()

        let reopened = try SyncEngine(recordedIn: try TestDriver.sqlite.openFile(file.path))
        defer { reopened.store.close() }
        let before = try reopened.versionVector()
        #expect {
            try reopened.importChanges(from: try b.exportChanges())
        } throws: { error in
            guard case SyncError.mergePolicy(let detail) = error else { return false }
            return detail.reason == .resolverUnavailable && detail.message.contains("longer-title")
        }
        #expect(try reopened.versionVector() == before)
        #expect(try reopened.store.fetchRows(of: "SyncDraft").first?["title"] == .text("one"))
        // It still exports what it has, and its digest.
        #expect(try reopened.digest() == digest)
    }

    @Test("a renamed resolver is another rule: its values are kept pending, and their sites not claimed")
    func renamedResolver() throws {
        let a = try Self.replica(.sqlite, site: 1)
        let b = try Self.replica(.memory, site: 2, models: [SyncDraftRenamedResolver.self])
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncDraft(id: "d", title: "hello"))
        let file = try a.exportChanges()
        let header = try ChangeLogContents(reading: file)
        let rules = Dictionary(uniqueKeysWithValues: header.entities[0].columns.map { ($0.name, $0.mergeRule) })
        #expect(rules["title"] == "resolver:longer-title" && rules["body"] == "")
        let summary = try b.importChanges(from: file)
        #expect(summary.skippedColumns == ["SyncDraft.title"])
        #expect(try b.store.find(SyncDraftRenamedResolver.self, id: "d")?.title == "")
        #expect(try b.versionVector() != a.versionVector())
    }

    @Test("rows stored before sync on two replicas: their values join, and versions and digests agree")
    func rowsFromBeforeSync() throws {
        var engines: [SyncEngine] = []
        defer { for engine in engines { engine.store.close() } }
        for (site, reviewers) in [(1, ["ann"]), (2, ["bob"])] {
            let store = try TestDriver.memory.makeStore()
            let draft = SyncDraft(id: "d", title: "plan")
            draft.reviewers = reviewers
            try store.commit(draft)
            engines.append(
                try SyncEngine(
                    store: store, lineage: "resolvers", models: [SyncDraft.self],
                    options: SyncOptions(site: testSite(site))))
        }
        // Each edits another column first: the row's first write here stamps every column.
        for (engine, body) in zip(engines, ["from a", "from b"]) {
            let draft = try Self.draft(engine)
            draft.body = body
            try engine.store.commit(draft)
        }
        // `a` hears from `b` first, joins, and then sends `b` what it lacks.
        try exchangeChanges(engines[1], engines[0])
        for engine in engines { #expect(try Self.draft(engine).reviewers == ["ann", "bob"]) }
        #expect(try engines[0].digest() == engines[1].digest())
    }

    @Test("a resolver's value that does not fit its column here is kept pending, not written")
    func valueThatDoesNotFit() throws {
        let a = try Self.replica(.memory, site: 1, models: [SyncDraftOptionalTitle.self])
        let b = try Self.replica(.sqlite, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        let draft = SyncDraftOptionalTitle(id: "d")
        draft.title = nil
        draft.body = "text"
        try a.store.commit(draft)
        let summary = try b.importChanges(from: try a.exportChanges())
        #expect(summary.skippedColumns == ["SyncDraft.title"])
        #expect(try Self.draft(b).title == "" && Self.draft(b).body == "text")
        #expect(try b.versionVector() != a.versionVector())
    }

    @Test("a resolver the column cannot hold, or a name a header cannot carry, is refused")
    func refused() throws {
        for model in [SyncBadResolverName.self, SyncOptionalStatusResolver.self] as [any Model.Type] {
            #expect {
                _ = try Self.replica(.memory, site: 1, models: [model])
            } throws: { error in
                guard case SyncError.unsupportedModel = error else { return false }
                return true
            }
        }
    }

    @Test("a resolver's file value is its contributions and value; damage is refused")
    func envelope() throws {
        let site = UUID()
        let encoded = ResolvedValue.encode([Contribution(site: site, sequence: 3)], value: .text("x"))
        let decoded = try ResolvedValue.decode(encoded)
        #expect(decoded.contributions == [Contribution(site: site, sequence: 3)] && decoded.value == .text("x"))
        guard case .blob(let data) = encoded else { return }
        for damaged in [Value.text("x"), .blob(data.dropLast()), .blob(data + [0]), .blob(Data([5]))] {
            #expect(throws: SyncError.self) { _ = try ResolvedValue.decode(damaged) }
        }
        // A length that runs past the end by its own prefix's size is refused, not a trap.
        #expect(throws: SyncError.self) {
            var reader = ByteReader([2, 0x61], context: "a text")
            _ = try reader.string()
        }
        #expect(throws: SyncError.self) {
            var reader = ByteReader([2, 0x61], context: "a blob")
            _ = try reader.data()
        }
        #expect(MergeRule(rawValue: "resolver:") == nil)
        #expect(MergeRule(rawValue: "resolver:a b") == nil)
        #expect(MergeRule(rawValue: "resolver:ok-1.2_x")?.rawValue == "resolver:ok-1.2_x")
    }
}
