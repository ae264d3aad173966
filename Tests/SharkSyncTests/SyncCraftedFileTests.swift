import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// Files with valid checksums and hostile contents: random entities (known and not), key kinds,
/// value types, causal lengths, versions and repeated keys, written by the library's own
/// writer so that every check up to the structure passes. Each import must end in a typed
/// error or a success, never a trap, and every driver must end with the same rows.
@Suite("Sync: crafted files")
struct SyncCraftedFileTests {
    @Test("random well-formed files: typed errors or the same result on every driver")
    func craftedFiles() throws {
        var random = SeededGenerator(state: 2026_11_23)
        let sites = (1...3).map { UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", $0))! }
        for round in 0..<100 {
            let engines = try TestDriver.allCases.map { driver in
                try SyncEngine(
                    store: try driver.makeStore(), lineage: "crafted", models: [SyncNote.self, SyncFolder.self])
            }
            defer { for engine in engines { engine.store.close() } }
            for _ in 0..<3 {
                let log = Self.randomLog(&random, sites: sites)
                let file = try ChangeLogWriter.write(log, key: nil)
                var outcomes: [String] = []
                for engine in engines {
                    do {
                        let summary = try engine.importChanges(from: file)
                        outcomes.append("applied \(summary.rowsApplied)")
                    } catch let error as SyncError {
                        outcomes.append("sync error: \(error)")
                    } catch let error as SharkError {
                        outcomes.append("shark error: \(error)")
                    }
                }
                #expect(
                    Set(outcomes).count == 1,
                    "round \(round): \(outcomes) \(log.entities.map { ($0.name, $0.keyKind, $0.rows.map { ($0.key, $0.causalLength, $0.values.map { ($0.column, $0.value) }) }) })"
                )
            }
            let expected = try syncedContents(engines[0].store)
            for engine in engines.dropFirst() {
                let contents = try syncedContents(engine.store)
                #expect(contents == expected, "round \(round): \(Set(contents).symmetricDifference(expected).sorted())")
            }
        }
    }

    @Test("a file naming rows more than once ends as its rows sent one file each", arguments: TestDriver.allCases)
    func repeatedRows(driver: TestDriver) throws {
        var random = SeededGenerator(state: 2026_11_24)
        let sites = (1...3).map { UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", $0))! }
        var compared = 0
        for round in 0..<100 {
            let whole = try SyncEngine(
                store: try driver.makeStore(), lineage: "crafted", models: [SyncNote.self, SyncFolder.self])
            let split = try SyncEngine(
                store: try driver.makeStore(), lineage: "crafted", models: [SyncNote.self, SyncFolder.self])
            defer {
                whole.store.close()
                split.store.close()
            }
            let log = Self.randomLog(&random, sites: sites)
            // Only files the store takes whole are compared: a refused file applies nothing.
            guard (try? whole.importChanges(from: ChangeLogWriter.write(log, key: nil))) != nil else { continue }
            for entity in log.entities {
                for row in entity.rows {
                    var single = log
                    single.entities = [
                        ChangeLogEntity(
                            name: entity.name, keyKind: entity.keyKind, columns: entity.columns, rows: [row])
                    ]
                    try split.importChanges(from: ChangeLogWriter.write(single, key: nil))
                }
            }
            #expect(try syncedContents(whole.store) == syncedContents(split.store), "round \(round)")
            compared += 1
        }
        #expect(compared >= 10)  // most random files are refused somewhere
    }

    @Test("timestamps beyond the clock's range are refused; one at its end never traps a later commit")
    func clockRange() throws {
        let engine = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "crafted", models: [SyncNote.self, SyncFolder.self])
        defer { engine.store.close() }
        func log(timestamp: UInt64) -> ChangeLog {
            let site = UUID(uuidString: "00000000-0000-0000-0000-000000000077")!
            let version = ColumnVersion(causalLength: 1, timestamp: timestamp, site: site, sequence: 1)
            let row = RowChange(
                key: .blob(Data(repeating: 7, count: 16)), causalLength: 1, versions: [version],
                values: [ColumnChange(column: 0, version: 0, value: "far future")])
            return ChangeLog(
                fileID: UUID(), source: site, lineage: "crafted", since: VersionVector(), vector: VersionVector(),
                entities: [
                    ChangeLogEntity(
                        name: "SyncNote", keyKind: .uuid, columns: [ChangeLogColumn(name: "title", type: .text)],
                        rows: [row])
                ])
        }
        #expect(throws: SyncError.self) {
            try engine.importChanges(from: try ChangeLogWriter.write(log(timestamp: .max), key: nil))
        }
        try engine.importChanges(from: try ChangeLogWriter.write(log(timestamp: HybridLogicalClock.maximum), key: nil))
        try engine.store.commit(SyncNote(title: "after the end of time"))  // the clock saturates
        #expect(try SyncNote.query(in: engine.store).count() == 2)
    }

    @Test("rows too big for one frame each make frames any default reader accepts")
    func bigRows() throws {
        let a = try SyncEngine(
            store: try TestDriver.sqlite.makeStore(), lineage: "big", models: [SyncNote.self, SyncFolder.self])
        let b = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "big", models: [SyncNote.self, SyncFolder.self])
        defer {
            a.store.close()
            b.store.close()
        }
        let body = String(repeating: "a long body ", count: 300_000)  // 3.6 MB, deflates well
        try a.store.commit((0..<3).map { SyncNote(title: "big \($0)", body: body + "\($0)") })
        let file = try a.exportChanges()
        #expect(try b.importChanges(from: file).rowsApplied == 3)
        #expect(try syncedContents(b.store) == syncedContents(a.store))
    }

    private static func randomValue(_ random: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .null
        case 1: return .integer(Int64.random(in: -3...3, using: &random) * (Bool.random(using: &random) ? 1 : .max / 3))
        case 2: return .real([0.5, -1, .infinity, .nan, 1e300].randomElement(using: &random)!)
        case 3: return .text(["", "a", "7", "x'", "🦈"].randomElement(using: &random)!)
        case 4:
            return .blob(
                Data(
                    (0..<Int.random(in: 0...17, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            )
        default: return .integer(Int64.random(in: 0...1, using: &random))
        }
    }

    private static func randomLog(_ random: inout SeededGenerator, sites: [UUID]) -> ChangeLog {
        let noteKeys = (0..<4).map { Value.blob(Data(repeating: UInt8($0), count: 16)) }
        let folderKeys: [Value] = ["inbox", "work", ""].map { .text($0) }
        var entities: [ChangeLogEntity] = []
        let choices: [(String, KeyKind, [ChangeLogColumn], [Value])] = [
            (
                "SyncNote", .uuid,
                [
                    ChangeLogColumn(name: "title", type: .text), ChangeLogColumn(name: "stars", type: .integer),
                    ChangeLogColumn(name: "score", type: .real), ChangeLogColumn(name: "folder", type: .text),
                    ChangeLogColumn(name: "unheard", type: .blob),
                ], noteKeys
            ),
            ("SyncFolder", .string, [ChangeLogColumn(name: "name", type: .text)], folderKeys),
            ("SyncFolder", .uuid, [ChangeLogColumn(name: "name", type: .text)], noteKeys),  // the wrong key kind
            ("Unknown", .string, [ChangeLogColumn(name: "x", type: .integer)], folderKeys),
        ]
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let (name, kind, columns, keys) = choices.randomElement(using: &random)!
            var rows: [RowChange] = []
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let causalLength = UInt64.random(in: 1...4, using: &random)
                let versions = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    ColumnVersion(
                        causalLength: UInt64.random(in: 1...causalLength, using: &random),
                        timestamp: UInt64.random(in: 0...5, using: &random), site: sites.randomElement(using: &random)!,
                        sequence: UInt64.random(in: 1...4, using: &random))
                }
                var values: [ColumnChange] = []
                if causalLength % 2 == 1 {
                    for column in columns.indices.shuffled(using: &random).prefix(
                        Int.random(in: 0...columns.count, using: &random))
                    {
                        values.append(
                            ColumnChange(
                                column: column, version: Int.random(in: 0..<versions.count, using: &random),
                                value: randomValue(&random)))
                    }
                }
                rows.append(
                    RowChange(
                        key: keys.randomElement(using: &random)!, causalLength: causalLength, versions: versions,
                        values: values))
            }
            entities.append(ChangeLogEntity(name: name, keyKind: kind, columns: columns, rows: rows))
        }
        var vector = VersionVector()
        for site in sites where Bool.random(using: &random) { vector[site] = UInt64.random(in: 1...4, using: &random) }
        return ChangeLog(
            fileID: UUID(), source: sites[0], lineage: "crafted", since: VersionVector(), vector: vector,
            entities: entities)
    }
}

/// Metadata an older build could leave: a tombstone and a batch naming the same key (that
/// build batched an insert without knowing of the tombstone). Exports and folds resolve it as
/// the insert applied to the removal: a new incarnation, never the removal.
@Suite("Sync: a tombstone and a batch of one key")
struct TombstoneUnderBatchTests {
    @Test("exported and folded as a re-insertion", arguments: TestDriver.allCases)
    func tombstoneUnderBatch(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let sync = try SyncEngine(store: store, lineage: "crafted", models: [SyncNote.self, SyncFolder.self])
        try store.commit(SyncFolder(id: "k", name: "first"))
        try SyncFolder.query(in: store).removeAll()  // a tombstone, causal length 2
        // The row comes back, and its state with it only as a batch, as an older build wrote it.
        let table = try #require(sync.tables["SyncFolder"])
        try store.write { tx in
            try tx.commit(SyncFolder(id: "k", name: "second"))
        }
        let vector = try sync.versionVector()
        // Undo the capture of the insert (a transaction of its own, so that a peer at `vector`
        // has the tombstone's arrival), then batch the insert over the tombstone.
        try store.write { tx in
            var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
            let arrival = try ArrivalLog.begin(in: tx, sites: sites, filters: sync.filters)
            try tx.writingBookkeeping {
                try table.foldBatches(at: arrival, in: tx)
                var removed = try #require(try table.states([Value.text("k")], in: store)[RowKey(.text("k"))])
                var state = try table.decode(removed, sites: sites)
                state.causalLength = 2
                removed = sites.encode(state)
                try table.write([(.text("k"), removed, false)], at: arrival, in: tx)
            }
            try ArrivalLog.record(arrival, sites: &sites, in: tx)
        }
        try store.write { tx in
            var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
            let stamp = TransactionStamp(
                timestamp: HybridLogicalClock.timestamp(milliseconds: 4_000_000_000_000, counter: 0), site: sync.site,
                sequence: vector[sync.site] + 1)
            let arrival = try ArrivalLog.begin(in: tx, sites: sites, filters: sync.filters)
            arrival.note(site: sync.site, sequence: stamp.sequence)
            try tx.writingBookkeeping {
                try table.writeBatch([.text("k")], state: sites.encode(.inserted(stamp)), at: arrival, in: tx)
            }
            try ArrivalLog.record(arrival, sites: &sites, in: tx)
        }
        // Whole, and since a vector that has the tombstone but not the batch (the export then
        // reads no tombstone with the states, and finds it through the batch's keys).
        for since in [VersionVector(), vector] {
            let row = try #require(
                try ChangeLogContents(reading: try sync.exportChanges(since: since)).entities.flatMap(\.rows).first)
            #expect(row.causalLength == 3)
            #expect(row.values.first { $0.column == "name" }?.value == .text("second"))
        }
        // The next update folds it the same way.
        let folder = try #require(try store.find(SyncFolder.self, id: "k"))
        folder.name = "third"
        try store.commit(folder)
        let after = try #require(
            try ChangeLogContents(reading: try sync.exportChanges()).entities.flatMap(\.rows).first)
        #expect(after.causalLength == 3)
    }
}
