import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

private func streamingReplica(_ driver: TestDriver, site: Int) throws -> SyncEngine {
    var options = SyncOptions(site: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", site))!)
    options.now = { 1_700_000_000_000 }
    return try SyncEngine(
        store: try driver.makeStore(), lineage: "tests", models: [SyncNote.self, SyncFolder.self], options: options)
}

/// A folder of its own for one test's files, removed after it.
private func withFolder(_ body: (URL) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shark-stream-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try body(folder)
}

/// Change logs of many frames, written to and read from files, pipes and handles a page at a
/// time: the same rows, versions and outcomes as the bytes in memory.
@Suite("Sync: logs through files")
struct SyncStreamingTests {
    @Test(
        "a log of several frames through a file, a pipe and a handle imports as its bytes do, new replica or not",
        arguments: TestDriver.allCases)
    func throughFiles(driver: TestDriver) throws {
        try withFolder { folder in
            let a = try streamingReplica(driver, site: 1)
            let b = try streamingReplica(driver, site: 2)
            let c = try streamingReplica(.memory, site: 3)
            defer { for engine in [a, b, c] { engine.store.close() } }
            // One transaction of 10,000 rows: batches of at most 4,096 keys.
            let notes = (0..<10_000).map { SyncNote(title: "note \($0)", stars: $0 % 97) }
            try a.store.commit(notes)
            #expect(try a.store.fetchRows(of: "SharkSyncStateBatch").count == 3)

            let file = folder.appendingPathComponent("all.sharklog")
            let written = try a.exportChanges(to: file)
            let bytes = try Data(contentsOf: file)
            #expect(written == bytes.count)
            // A frame per batch, and the digest's.
            #expect(try ChangeLogContents(reading: bytes).frameCount == 4)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["all.sharklog"])
            // A new replica from the file, another from the bytes: the same rows.
            #expect(try b.importChanges(from: file).rowsApplied == 10_000)
            #expect(try c.importChanges(from: bytes).rowsApplied == 10_000)
            #expect(try syncedContents(b.store) == syncedContents(a.store))
            #expect(try syncedContents(c.store) == syncedContents(a.store))
            // Replayed through a pipe, which cannot be read twice: nothing changes.
            #expect(try Self.importThroughPipe(bytes, into: b).rowsApplied == 0)

            // Edits on both sides, then what each lacks, through a handle and a file.
            for note in notes where note.stars == 5 { note.body = "edited on a" }
            try a.store.commit(notes.filter { $0.stars == 5 })
            let onB = try SyncNote.query(in: b.store).where(\.stars == 7).fetch()
            for note in onB { note.title = "retitled on b" }
            try b.store.commit(onB)
            try SyncNote.query(in: b.store).where(\.stars == 11).removeAll()
            let handleFile = folder.appendingPathComponent("from-a.sharklog")
            #expect(FileManager.default.createFile(atPath: handleFile.path, contents: nil))
            let handle = try FileHandle(forWritingTo: handleFile)
            let count = try a.exportChanges(since: try b.versionVector(), to: handle)
            try handle.close()
            #expect(count == (try Data(contentsOf: handleFile)).count)
            let fromB = folder.appendingPathComponent("from-b.sharklog")
            try b.exportChanges(since: try a.versionVector(), to: fromB)
            try b.importChanges(from: handleFile)
            try a.importChanges(from: fromB)
            #expect(try syncedContents(a.store) == syncedContents(b.store))
            #expect(try SyncNote.query(in: a.store).count() == 10_000 - notes.filter { $0.stars == 11 }.count)
        }
    }

    @Test("the async forms write and read the same files", arguments: TestDriver.allCases)
    func asyncForms(driver: TestDriver) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shark-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try streamingReplica(driver, site: 1)
        let b = try streamingReplica(driver, site: 2)
        defer { for engine in [a, b] { engine.store.close() } }
        try a.store.commit((0..<5_000).map { SyncNote(title: "note \($0)") })
        let file = folder.appendingPathComponent("all.sharklog")
        let written = try await a.exportChanges(to: file)
        #expect(written == (try Data(contentsOf: file)).count)
        #expect(try await b.importChanges(from: file).rowsApplied == 5_000)
        #expect(try await b.importChanges(from: file).rowsApplied == 0)
        #expect(try syncedContents(b.store) == syncedContents(a.store))
    }

    @Test("an import of more than 10,000 rows of an entity reports them as unknown changes; a smaller one row by row")
    func largeImportEvent() async throws {
        let a = try streamingReplica(.memory, site: 1)
        let b = try streamingReplica(.memory, site: 2)
        defer { for engine in [a, b] { engine.store.close() } }
        try a.store.commit((0..<10_000).map { SyncNote(title: "note \($0)") })
        var events = b.store.events().makeAsyncIterator()
        try await b.importChanges(from: try await a.exportChanges())
        let small = try #require(await events.next()?.entities["SyncNote"])
        #expect(small.inserted.count == 10_000 && !small.hasUnknownChanges)
        let vector = try await b.versionVector()
        try a.store.commit((0..<10_001).map { SyncNote(title: "more \($0)") })
        try await b.importChanges(from: try await a.exportChanges(since: vector))
        let large = try #require(await events.next()?.entities["SyncNote"])
        #expect(large.hasUnknownChanges && large.inserted.isEmpty)
        #expect(try await SyncNote.query(in: b.store).count() == 20_001)
    }

    @Test("a key a file names in two frames of an empty entity is refused, and the store keeps nothing")
    func keyInTwoFrames() throws {
        let a = try streamingReplica(.memory, site: 1)
        defer { a.store.close() }
        try a.store.commit((0..<5_000).map { SyncNote(title: "note \($0)") })
        var log = try ChangeLogReader.read(try a.exportChanges(), key: nil, limits: ChangeLogLimits())
        let index = log.entities.firstIndex { $0.name == "SyncNote" }!
        log.entities[index].rows.append(log.entities[index].rows[0])  // in the second frame
        let file = try ChangeLogWriter.write(log, key: nil)
        for driver in TestDriver.allCases {
            let b = try streamingReplica(driver, site: 2)
            defer { b.store.close() }
            #expect {
                try b.importChanges(from: file)
            } throws: { error in
                guard case SyncError.corrupt(let detail) = error else { return false }
                return detail.reason == .malformedContent
            }
            #expect(try b.store.fetchRows(of: "SyncNote").isEmpty)
            #expect(try b.store.fetchRows(of: "SharkSyncStateBatch").isEmpty)
            #expect(try b.versionVector() == VersionVector())
        }
    }

    @Test("a file that cannot be written or read throws its reason and leaves no file behind")
    func fileErrors() throws {
        try withFolder { folder in
            let a = try streamingReplica(.memory, site: 1)
            defer { a.store.close() }
            try a.store.commit(SyncNote(title: "one"))
            let missingFolder = folder.appendingPathComponent("missing").appendingPathComponent("x.sharklog")
            #expect(throws: SyncError.self) { try a.exportChanges(to: missingFolder) }
            do {
                try a.exportChanges(to: missingFolder)
            } catch let error as SyncError {
                guard case .file(let detail) = error else { throw error }
                #expect(detail.reason == .cannotOpen)
            }
            do {
                try a.importChanges(from: folder.appendingPathComponent("absent.sharklog"))
                Issue.record("an absent file imported")
            } catch let error as SyncError {
                guard case .file(let detail) = error else { throw error }
                #expect(detail.reason == .cannotOpen)
            }
            // A truncated file is refused before anything is written.
            let file = folder.appendingPathComponent("cut.sharklog")
            let bytes = try a.exportChanges()
            try bytes.prefix(bytes.count - 10).write(to: file)
            let b = try streamingReplica(.memory, site: 2)
            defer { b.store.close() }
            #expect(throws: SyncError.self) { try b.importChanges(from: file) }
            #expect(try b.store.fetchRows(of: "SyncNote").isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cut.sharklog"])
        }
    }

    /// Imports `bytes` from the reading end of a pipe another thread writes them into.
    private static func importThroughPipe(_ bytes: Data, into engine: SyncEngine) throws -> SyncImportSummary {
        let pipe = Pipe()
        let writer = Thread {
            pipe.fileHandleForWriting.write(bytes)
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        defer { try? pipe.fileHandleForReading.close() }
        return try engine.importChanges(
            from: URL(fileURLWithPath: "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)"))
    }
}
