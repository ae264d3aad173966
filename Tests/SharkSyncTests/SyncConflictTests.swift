import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkSync
import SharkTestSupport
import Synchronization
import Testing

@testable import SharkDriverConformance

/// The conflicts one replica's imports report (``SyncOptions/onConflict``).
private final class ConflictLog: Sendable {
    private let conflicts = Mutex<[SyncConflict]>([])
    func append(_ conflict: SyncConflict) { conflicts.withLock { $0.append(conflict) } }
    /// What was reported since the last call.
    func take() -> [SyncConflict] {
        conflicts.withLock { taken in
            defer { taken = [] }; return taken
        }
    }
}

/// Conflicts the app can see: concurrent edits of one column (on the replica whose value
/// lost, in either order of the files), edits erased by a removal elsewhere and edits of a
/// row removed here, app resolvers' joins, unique values lost; and none for writes made after
/// seeing each other, for replayed files, for counters, or when nobody asked.
@Suite("Sync: conflicts the app can see")
struct SyncConflictTests {
    /// Replica `site` on `driver`, its clock at `milliseconds` (so that which of two
    /// concurrent writes wins is the test's choice), reporting to `log`.
    private static func replica(
        _ driver: TestDriver, site: Int, milliseconds: UInt64, log: ConflictLog?,
        models: [any Model.Type] = [SyncNote.self, SyncFolder.self, SyncScore.self, SyncDraft.self, SyncAccount.self]
    ) throws -> SyncEngine {
        var options = SyncOptions()
        options.now = { milliseconds }
        if let log { options.onConflict = { log.append($0) } }
        return try syncReplica(driver, site: site, lineage: "conflicts", models: models, options: options)
    }

    private static func send(_ from: SyncEngine, to: SyncEngine) throws {
        try to.importChanges(from: try from.exportChanges(since: try to.versionVector()))
    }

    private static func retitle(_ engine: SyncEngine, _ id: UUID, _ title: String) throws {
        let note = try #require(try engine.store.find(SyncNote.self, id: id))
        note.title = title
        try engine.store.commit(note)
    }

    @Test(
        "concurrent edits of a column: reported where a value lost, whichever file arrives first",
        arguments: TestDriver.allCases)
    func concurrentEdits(driver: TestDriver) throws {
        for incomingFirst in [false, true] {
            let (early, late) = (ConflictLog(), ConflictLog())
            // `a` writes earlier than `b`: `b`'s value wins.
            let a = try Self.replica(driver, site: 1, milliseconds: 1_000, log: early)
            let b = try Self.replica(.memory, site: 2, milliseconds: 2_000, log: late)
            defer {
                a.store.close()
                b.store.close()
            }
            let note = SyncNote(title: "draft")
            try a.store.commit(note)
            try Self.send(a, to: b)
            try Self.retitle(a, note.id, "from a")
            try Self.retitle(b, note.id, "from b")
            #expect(early.take().isEmpty && late.take().isEmpty)
            if incomingFirst {
                // `a` hears first: its value is overwritten by one written without seeing it.
                try Self.send(b, to: a)
                let reported = early.take()
                #expect(reported.count == 1)
                let conflict = try #require(reported.first)
                #expect(conflict.kind == .overwritten && conflict.entity == "SyncNote" && conflict.column == "title")
                #expect(conflict.key == .blob(withUnsafeBytes(of: note.id.uuid) { Data($0) }))
                #expect(conflict.localValue == .text("from a") && conflict.incomingValue == .text("from b"))
                #expect(conflict.localSite == a.site && conflict.incomingSite == b.site)
                // `b` then gets nothing it lacks: `a` holds `b`'s value.
                try Self.send(a, to: b)
                #expect(late.take().isEmpty)
            } else {
                // `b` hears first: `a`'s value lost to its own.
                try Self.send(a, to: b)
                let reported = late.take()
                #expect(reported.map(\.kind) == [.incomingLost])
                #expect(
                    reported.first?.incomingValue == .text("from a") && reported.first?.localValue == .text("from b"))
                // `a` then takes `b`'s value from a sender that had seen `a`'s: not reported
                // again (docs/sync.md, "Conflicts").
                try Self.send(b, to: a)
                #expect(early.take().isEmpty)
            }
            #expect(try a.store.find(SyncNote.self, id: note.id)?.title == "from b")
        }
    }

    @Test("writes made after seeing each other, replayed files and counters report nothing")
    func noConflicts() throws {
        let (logA, logB) = (ConflictLog(), ConflictLog())
        let a = try Self.replica(.sqlite, site: 1, milliseconds: 1_000, log: logA)
        let b = try Self.replica(.memory, site: 2, milliseconds: 2_000, log: logB)
        defer {
            a.store.close()
            b.store.close()
        }
        let note = SyncNote(title: "one")
        try a.store.commit(note)
        try a.store.commit(SyncScore(id: "s"))
        let first = try a.exportChanges()
        try b.importChanges(from: first)
        try Self.retitle(b, note.id, "two")
        try Self.send(b, to: a)
        try Self.retitle(a, note.id, "three")
        try Self.send(a, to: b)
        // A replay of an old file: every value in it was seen.
        try b.importChanges(from: first)
        try a.importChanges(from: first)
        // Concurrent increments both count: nothing lost.
        for engine in [a, b] {
            let score = try #require(try engine.store.find(SyncScore.self, id: "s"))
            score.likes += 1
            try engine.store.commit(score)
        }
        try exchangeChanges(a, b)
        #expect(logA.take().isEmpty && logB.take().isEmpty)
        #expect(try b.store.find(SyncNote.self, id: note.id)?.title == "three")
    }

    @Test("an edit erased by a removal elsewhere, and an edit of a row removed here", arguments: TestDriver.allCases)
    func removals(driver: TestDriver) throws {
        let (logA, logB) = (ConflictLog(), ConflictLog())
        let a = try Self.replica(driver, site: 1, milliseconds: 1_000, log: logA)
        let b = try Self.replica(.memory, site: 2, milliseconds: 2_000, log: logB)
        defer {
            a.store.close()
            b.store.close()
        }
        let kept = SyncNote(title: "kept")
        let other = SyncNote(title: "other")
        try a.store.commit(kept)
        try a.store.commit(other)
        try Self.send(a, to: b)
        // A edits both; B removes both, unaware.
        try Self.retitle(a, kept.id, "edited on a")
        try Self.retitle(a, other.id, "edited too")
        for id in [kept.id, other.id] { try b.store.remove(try #require(try b.store.find(SyncNote.self, id: id))) }
        // B hears of the edits first: they are edits of rows it removed.
        try Self.send(a, to: b)
        let atB = logB.take()
        #expect(atB.count == 2 && atB.allSatisfy { $0.kind == .incomingLost && $0.column == "title" })
        #expect(Set(atB.compactMap(\.incomingValue)) == [.text("edited on a"), .text("edited too")])
        // A hears of the removals from B, which had seen the edits: not reported again.
        try Self.send(b, to: a)
        #expect(logA.take().isEmpty)
        #expect(try a.store.find(SyncNote.self, id: kept.id) == nil)

        // The other order: A edits, B removes, A hears first: its edit was erased.
        let again = SyncNote(title: "again")
        try a.store.commit(again)
        try Self.send(a, to: b)
        try Self.retitle(a, again.id, "mine")
        try b.store.remove(try #require(try b.store.find(SyncNote.self, id: again.id)))
        try Self.send(b, to: a)
        let erased = logA.take()
        #expect(erased.map(\.kind) == [.erasedByRemoval])
        #expect(erased.first?.column == "title" && erased.first?.localValue == .text("mine"))
        #expect(erased.first?.incomingSite == b.site)
    }

    @Test("an app resolver's join is reported as merged, with the joined value")
    func merged() throws {
        let log = ConflictLog()
        let a = try Self.replica(.sqlcipher, site: 1, milliseconds: 1_000, log: log)
        let b = try Self.replica(.memory, site: 2, milliseconds: 2_000, log: nil)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncDraft(id: "d"))
        try Self.send(a, to: b)
        for (engine, reviewer) in [(a, "ann"), (b, "bob")] {
            let draft = try #require(try engine.store.find(SyncDraft.self, id: "d"))
            draft.reviewers = [reviewer]
            try engine.store.commit(draft)
        }
        try Self.send(b, to: a)
        let reported = log.take()
        #expect(reported.map(\.kind) == [.merged])
        #expect(reported.first?.column == "reviewers")
        #expect(reported.first?.localValue == .text(#"["ann"]"#))
        #expect(reported.first?.incomingValue == .text(#"["bob"]"#))
        #expect(reported.first?.mergedValue == .text(#"["ann","bob"]"#))

        // A join that is one of the two still merged the other away: reported too.
        for (engine, status) in [(a, SyncDraftStatus.review), (b, .published)] {
            let draft = try #require(try engine.store.find(SyncDraft.self, id: "d"))
            draft.status = status
            try engine.store.commit(draft)
        }
        try Self.send(b, to: a)
        let joined = log.take()
        #expect(joined.map(\.kind) == [.merged] && joined.first?.column == "status")
        #expect(joined.first?.localValue == .text("review") && joined.first?.mergedValue == .text("published"))
    }

    @Test(
        "a unique value lost to a concurrent row is reported with the row that holds it", arguments: TestDriver.allCases
    )
    func uniqueValueLost(driver: TestDriver) throws {
        let log = ConflictLog()
        let a = try Self.replica(driver, site: 1, milliseconds: 1_000, log: log)
        let b = try Self.replica(.memory, site: 2, milliseconds: 2_000, log: nil)
        defer {
            a.store.close()
            b.store.close()
        }
        let mine = SyncAccount(handle: "ann")
        try a.store.commit(mine)
        let theirs = SyncAccount(handle: "ann")
        try b.store.commit(theirs)
        try Self.send(b, to: a)
        let reported = log.take()
        #expect(reported.map(\.kind) == [.uniqueValueLost])
        let key = { (id: UUID) in Value.blob(withUnsafeBytes(of: id.uuid) { Data($0) }) }
        #expect(reported.first?.key == key(mine.id) && reported.first?.holder == key(theirs.id))
        #expect(reported.first?.column == "handle" && reported.first?.uniqueValues == [.text("ann")])
    }

    @Test("a replica that asked for no conflicts is told of none, and merges alike")
    func off() throws {
        let a = try Self.replica(.memory, site: 1, milliseconds: 1_000, log: nil)
        let b = try Self.replica(.memory, site: 2, milliseconds: 2_000, log: nil)
        defer {
            a.store.close()
            b.store.close()
        }
        let note = SyncNote(title: "t")
        try a.store.commit(note)
        try Self.send(a, to: b)
        try Self.retitle(a, note.id, "a")
        try Self.retitle(b, note.id, "b")
        try exchangeChanges(a, b)
        #expect(try a.digest() == b.digest())
    }
}
