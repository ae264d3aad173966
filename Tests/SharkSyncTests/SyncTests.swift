import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// Two replicas, each on a driver of the suite, synced in the lineage "tests".
private func replica(_ driver: TestDriver, site: Int) throws -> SyncEngine {
    let store = try driver.makeStore()
    var options = SyncOptions(site: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", site))!)
    options.now = { 1_700_000_000_000 }
    return try SyncEngine(store: store, lineage: "tests", models: [SyncNote.self, SyncFolder.self], options: options)
}

/// Every row of `entities` in a store, in a form that compares across drivers.
func contents(of entities: [String], in store: Store) throws -> [String] {
    try entities.flatMap { entity in
        try store.fetchRows(of: entity).map { row in
            "\(entity) " + row.values.map(\.description).joined(separator: " | ")
        }
    }.sorted()
}

/// Every row of the notes and folders.
func syncedContents(_ store: Store) throws -> [String] { try contents(of: ["SyncNote", "SyncFolder"], in: store) }

@Suite("Sync")
struct SyncTests {
    @Test("a round trip carries inserts, relationships, updates and removals", arguments: TestDriver.allCases)
    func roundTrip(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        let b = try replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        let inbox = SyncFolder(id: "inbox", name: "Inbox")
        let note = SyncNote(title: "hello", body: "first", stars: 3)
        note.folder = inbox
        try a.store.commit(inbox)
        try a.store.commit([note, SyncNote(title: "second")])

        let summary = try b.importChanges(from: try a.exportChanges())
        #expect(summary.rowsApplied == 3)
        #expect(try syncedContents(b.store) == syncedContents(a.store))
        let copied = try #require(try b.store.find(SyncNote.self, id: note.id))
        #expect(copied.folder?.name == "Inbox")

        note.stars = 5
        try a.store.commit(note)
        try a.store.remove(try #require(try SyncNote.query(in: a.store).where(\.title == "second").first()))
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        #expect(try syncedContents(b.store) == syncedContents(a.store))
        #expect(try SyncNote.query(in: b.store).count() == 1)
        #expect(try b.versionVector() == a.versionVector())
    }

    @Test(
        "replaying a file changes nothing; an export since a vector holds only what is new",
        arguments: TestDriver.allCases)
    func idempotentAndIncremental(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        let b = try replica(driver, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit((0..<500).map { SyncNote(title: "note \($0)") })
        let full = try a.exportChanges()
        #expect(try b.importChanges(from: full).rowsApplied == 500)
        let before = try syncedContents(b.store)
        let replay = try b.importChanges(from: full)
        #expect(replay.rowsApplied == 0 && replay.rowsUnchanged == 500)
        #expect(try syncedContents(b.store) == before)

        try a.store.commit(SyncNote(title: "one more"))
        let delta = try a.exportChanges(since: try b.versionVector())
        #expect(delta.count < full.count / 10)
        #expect(try b.importChanges(from: delta).rowsApplied == 1)
        // Nothing new: an export since the peer's vector holds no row.
        #expect(try a.importChanges(from: try b.exportChanges(since: try a.versionVector())).rowsApplied == 0)
    }

    @Test("concurrent edits of different columns merge; of one column, the later wins", arguments: TestDriver.allCases)
    func concurrentEdits(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        let b = try replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        let note = SyncNote(title: "draft", body: "", stars: 0)
        try a.store.commit(note)
        try b.importChanges(from: try a.exportChanges())
        let theirs = try #require(try b.store.find(SyncNote.self, id: note.id))
        note.title = "title from a"
        try a.store.commit(note)
        theirs.body = "body from b"
        try b.store.commit(theirs)
        note.stars = 1
        try a.store.commit(note)
        theirs.stars = 2  // b's edit of stars comes later on the hybrid clock? Same wall clock: the
        try b.store.commit(theirs)  // counter decides, then the site id: deterministic either way.

        let fromA = try a.exportChanges()
        let fromB = try b.exportChanges()
        try a.importChanges(from: fromB)
        try b.importChanges(from: fromA)
        #expect(try syncedContents(a.store) == syncedContents(b.store))
        let merged = try #require(try a.store.find(SyncNote.self, id: note.id))
        #expect(merged.title == "title from a")
        #expect(merged.body == "body from b")
    }

    @Test(
        "a removal, a re-insertion and an update of the old row converge in any order", arguments: TestDriver.allCases)
    func removalAndReinsertion(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        let b = try replica(driver, site: 2)
        let c = try replica(.memory, site: 3)
        defer { for engine in [a, b, c] { engine.store.close() } }
        let note = SyncNote(title: "original", stars: 1)
        try a.store.commit(note)
        let first = try a.exportChanges()
        try b.importChanges(from: first)
        // a removes it and inserts it again with other values; b edits the old incarnation.
        try a.store.remove(note)
        let again = SyncNote(id: note.id, title: "reborn", stars: 9)
        try a.store.commit(again)
        let old = try #require(try b.store.find(SyncNote.self, id: note.id))
        old.body = "edited before hearing of the removal"
        try b.store.commit(old)
        let fromA = try a.exportChanges()
        let fromB = try b.exportChanges()
        // c hears of them in the other order than b.
        try c.importChanges(from: fromB)
        try c.importChanges(from: fromA)
        try b.importChanges(from: fromA)
        try a.importChanges(from: fromB)
        let contents = try syncedContents(a.store)
        #expect(try syncedContents(b.store) == contents)
        #expect(try syncedContents(c.store) == contents)
        #expect(try a.store.find(SyncNote.self, id: note.id)?.title == "reborn")
        #expect(try a.store.find(SyncNote.self, id: note.id)?.body == "")  // the edit was of the removed row
    }

    @Test(
        "a batch of inserts that brings back a removed key continues its causal length; the others start at 1",
        arguments: TestDriver.allCases)
    func reinsertionAmongInserts(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        defer { a.store.close() }
        let note = SyncNote(title: "first life")
        try a.store.commit(note)
        try a.store.remove(note)
        let fresh = [SyncNote(title: "new one"), SyncNote(title: "new two")]
        // One transaction of inserts only: the states are written without a read, and the
        // taken key sends the whole batch the long way.
        try a.store.commit([fresh[0], SyncNote(id: note.id, title: "second life"), fresh[1]])
        let contents = try ChangeLogContents(reading: try a.exportChanges())
        func uuid(_ key: Value) -> UUID? {
            guard case .blob(let bytes) = key, bytes.count == 16 else { return nil }
            return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        }
        let rows = Dictionary(
            uniqueKeysWithValues: contents.entities.flatMap(\.rows).compactMap { row in
                uuid(row.key).map { ($0, row.causalLength) }
            })
        #expect(rows[note.id] == 3)
        #expect(rows[fresh[0].id] == 1)
        #expect(rows[fresh[1].id] == 1)
        #expect(try SyncNote.query(in: a.store).count() == 3)
    }

    @Test(
        "rows whose states are batched (bulk inserts, bulk imports) merge like any other when edited, removed and re-imported",
        arguments: TestDriver.allCases)
    func batchedStates(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        let b = try replica(driver, site: 2)
        let c = try replica(.memory, site: 3)
        defer { for engine in [a, b, c] { engine.store.close() } }
        let count = RowStateTable.smallestBatch
        let notes = (0..<count).map { SyncNote(title: "note \($0)", stars: $0) }
        try a.store.commit(notes)  // one transaction: one batch on a
        let first = try a.exportChanges()
        try b.importChanges(from: first)  // one batch on b too
        #expect(try a.store.fetchRows(of: "SharkSyncStateBatch").count == 1)
        #expect(try b.store.fetchRows(of: "SharkSyncStateBatch").count == 1)
        #expect(try b.store.fetchRows(of: "SharkSyncState_SyncNote").isEmpty)
        // Replaying changes nothing (the import reads states one by one: the batch becomes rows).
        #expect(try b.importChanges(from: first).rowsApplied == 0)
        #expect(try b.store.fetchRows(of: "SharkSyncState_SyncNote").count == count)
        // b edits some and removes others (its batch becomes rows first); a edits others.
        for note in try SyncNote.query(in: b.store).where(\.stars < 10).fetch() {
            note.body = "edited on b"
            try b.store.commit(note)
        }
        try SyncNote.query(in: b.store).where(\.stars >= count - 10).removeAll()
        #expect(try b.store.fetchRows(of: "SharkSyncStateBatch").isEmpty)
        // a's updates move only the keys they change out of its batch: the others stay in it.
        #expect(try a.store.fetchRows(of: "SharkSyncStateBatch").count == 1)
        let retitled = notes.filter { $0.stars % 10 == 5 }
        for note in retitled {
            note.title = "retitled on a"
            try a.store.commit(note)
        }
        #expect(try a.store.fetchRows(of: "SharkSyncStateBatch").count == 1)
        #expect(try a.store.fetchRows(of: "SharkSyncState_SyncNote").count == retitled.count)
        let fromA = try a.exportChanges()
        let fromB = try b.exportChanges()
        try c.importChanges(from: fromB)
        try c.importChanges(from: fromA)
        try a.importChanges(from: fromB)
        try b.importChanges(from: fromA)
        let contents = try syncedContents(a.store)
        #expect(try syncedContents(b.store) == contents)
        #expect(try syncedContents(c.store) == contents)
        #expect(try SyncNote.query(in: a.store).count() == count - 10)
        #expect(try SyncNote.query(in: a.store).where(\.body == "edited on b").count() == 10)
        #expect(
            try SyncNote.query(in: c.store).where(\.title == "retitled on a").count()
                == retitled.filter { $0.stars < count - 10 }.count)
        // What each exports to a newcomer is everything, batched or not.
        let newcomer = try replica(driver, site: 4)
        defer { newcomer.store.close() }
        try newcomer.importChanges(from: try b.exportChanges())
        #expect(try syncedContents(newcomer.store) == contents)
    }

    @Test("imports raise events marked as imported, and capture none of their own", arguments: TestDriver.allCases)
    func importedEvents(driver: TestDriver) async throws {
        let a = try replica(driver, site: 1)
        let b = try replica(driver, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncNote(title: "hello"))
        var events = b.store.events().makeAsyncIterator()
        try await b.importChanges(from: try await a.exportChanges())
        let event = try #require(await events.next())
        #expect(event.origin == .imported(a.site.uuidString))
        #expect(event.entities.keys.sorted() == ["SyncNote"])  // no metadata entity
        // b captured nothing: its own vector entry did not move.
        #expect(try await b.versionVector()[b.site] == 0)
    }

    @Test(
        "models that cannot converge are refused, and so is raw SQL on synced entities", arguments: TestDriver.allCases)
    func refusals(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        #expect(throws: SyncError.self) {
            try SyncEngine(store: store, lineage: "tests", models: [SyncCounter.self])
        }
        for model in [SyncTicket.self, SyncSeat.self] as [any Model.Type] {
            #expect {
                try SyncEngine(store: store, lineage: "tests", models: [model])
            } throws: { error in
                guard case SyncError.unsupportedModel(_, let reason) = error else { return false }
                return reason.contains("stand-in")
            }
        }
        let sync = try SyncEngine(store: store, lineage: "tests", models: [SyncNote.self, SyncFolder.self])
        #expect(throws: SharkError.self) { try store.execute("DELETE FROM SyncNote") }
        #expect(throws: SyncError.self) {
            try SyncEngine(store: store, lineage: "another app", models: [SyncNote.self, SyncFolder.self])
        }
        _ = sync
    }

    @Test(
        "a file from another lineage, or with the wrong key, is refused and changes nothing",
        arguments: TestDriver.allCases)
    func refusedFiles(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        let b = try replica(driver, site: 2)
        let foreign = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "another app", models: [SyncNote.self, SyncFolder.self])
        defer { for engine in [a, b, foreign] { engine.store.close() } }
        try a.store.commit(SyncNote(title: "secret"))
        try foreign.store.commit(SyncNote(title: "alien"))
        let key = ChangeLogKey.random()
        let sealed = try a.exportChanges(key: key)
        #expect(throws: SyncError.wrongKey) { try b.importChanges(from: sealed, key: ChangeLogKey.random()) }
        #expect(throws: SyncError.self) { try b.importChanges(from: sealed) }
        #expect(throws: SyncError.self) { try b.importChanges(from: try a.exportChanges(), key: key) }
        #expect(throws: SyncError.foreignLineage(expected: "tests", found: "another app")) {
            try b.importChanges(from: try foreign.exportChanges())
        }
        #expect(try syncedContents(b.store).isEmpty)
        #expect(try b.importChanges(from: sealed, key: key).rowsApplied == 1)
    }

    @Test("tombstones are forgotten once every replica has seen the removal", arguments: TestDriver.allCases)
    func forgettingTombstones(driver: TestDriver) throws {
        let a = try replica(driver, site: 1)
        let b = try replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        let notes = (0..<3).map { SyncNote(title: "note \($0)") }
        try a.store.commit(notes)
        try b.importChanges(from: try a.exportChanges())
        try a.store.remove(notes[0])
        // b has not heard of the removal: the tombstone stays.
        #expect(try a.forgetTombstones(seenBy: [try a.versionVector(), try b.versionVector()]) == 0)
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        #expect(try b.store.find(SyncNote.self, id: notes[0].id) == nil)
        #expect(try a.forgetTombstones(seenBy: [try a.versionVector(), try b.versionVector()]) == 1)
        #expect(try b.forgetTombstones(seenBy: [try a.versionVector(), try b.versionVector()]) == 1)
        // Both still agree, and later changes still travel: a key used again starts a newer
        // incarnation, which the other replica accepts.
        notes[1].stars = 4
        try a.store.commit(notes[1])
        try a.store.commit(SyncNote(id: notes[0].id, title: "back again"))
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        #expect(try b.store.find(SyncNote.self, id: notes[0].id)?.title == "back again")
        #expect(try syncedContents(a.store) == syncedContents(b.store))
        #expect(try a.forgetTombstones(seenBy: [try a.versionVector(), try b.versionVector()]) == 0)
    }

    @Test(
        "a reference to an object not received yet stays as a key and resolves when it arrives",
        arguments: TestDriver.allCases)
    func referenceBeforeItsObject(driver: TestDriver) throws {
        let a = try replica(.memory, site: 1)
        let b = try replica(driver, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        let later = SyncFolder(id: "later", name: "Later")
        try a.store.commit(later)
        let note = SyncNote(title: "points ahead")
        note.folder = later
        try a.store.commit(note)
        // A file made as if b had seen the folder's transaction already: it holds the note only.
        var assumed = VersionVector()
        assumed[a.site] = 1
        let summary = try b.importChanges(from: try a.exportChanges(since: assumed))
        #expect(summary.rowsApplied == 1)
        let stored = try #require(try b.store.fetchRows(of: "SyncNote").first)
        #expect(stored["folder"] == .text("later"))
        #expect(try b.store.find(SyncFolder.self, id: "later") == nil)
        // b lacks part of what the file assumed: it does not claim a's changes.
        #expect(try b.versionVector()[a.site] == 0)
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        #expect(try b.store.find(SyncNote.self, id: note.id)?.folder?.name == "Later")
        #expect(try b.versionVector() == a.versionVector())
    }

    @Test(
        "a store opened without its model types exports and imports from what it recorded",
        arguments: TestDriver.allCases.filter(\.isPersistent))
    func withoutModelTypes(driver: TestDriver) throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        let site: UUID
        do {
            let store = try driver.openFile(path.path)
            defer { store.close() }
            let engine = try SyncEngine(store: store, lineage: "tests", models: [SyncNote.self, SyncFolder.self])
            site = engine.site
            try store.commit(SyncNote(title: "written by the app"))
        }
        let other = try replica(.memory, site: 9)
        defer { other.store.close() }
        try other.store.commit(SyncFolder(id: "elsewhere", name: "Elsewhere"))

        let store = try driver.openFile(path.path)  // as a tool opens it: no model type
        defer { store.close() }
        let engine = try SyncEngine(recordedIn: store)
        #expect(engine.site == site && engine.lineage == "tests")
        try other.importChanges(from: try engine.exportChanges())
        try engine.importChanges(from: try other.exportChanges(since: try engine.versionVector()))
        #expect(try syncedContents(store) == syncedContents(other.store))
        #expect(throws: SyncError.self) { try SyncEngine(recordedIn: try TestDriver.memory.makeStore()) }
    }

    @Test("the async forms export and import on the store's threads", arguments: TestDriver.allCases)
    func asyncForms(driver: TestDriver) async throws {
        let a = try replica(driver, site: 1)
        let b = try replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try commit(SyncNote(title: "from an async context"), to: a.store)
        let file = try await a.exportChanges(since: try await b.versionVector())
        #expect(try await b.importChanges(from: file).rowsApplied == 1)
        #expect(try await b.versionVector() == a.versionVector())
        #expect(try syncedContents(b.store) == syncedContents(a.store))
    }
}

/// A plain function, so that inside async tests the commit uses the synchronous API.
private func commit<M: Model>(_ object: M, to store: Store) throws { try store.commit(object) }
