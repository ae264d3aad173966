import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSync
import SharkTestSupport
import Testing

@testable import SharkDriverConformance

/// Damaged, hostile and foreign change logs: each is refused with a `SyncError` and the
/// receiving store is left exactly as it was (its rows and its sync metadata).
@Suite("Sync: damaged files")
struct SyncFileTests {
    /// A sender with inserts, updates, a removal and a relationship, and a receiver that
    /// already holds some of it; the file carries the rest.
    private static func fixture(_ driver: TestDriver) throws -> (sender: SyncEngine, receiver: SyncEngine) {
        func engine(_ driver: TestDriver, site: String) throws -> SyncEngine {
            var options = SyncOptions(site: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(site)")!)
            options.now = { 1_700_000_000_000 }
            return try SyncEngine(
                store: try driver.makeStore(), lineage: "files", models: [SyncNote.self, SyncFolder.self],
                options: options)
        }
        let sender = try engine(.memory, site: "1")
        let receiver = try engine(driver, site: "2")
        let folder = SyncFolder(id: "inbox", name: "Inbox")
        try sender.store.commit(folder)
        let notes = (0..<12).map {
            SyncNote(title: "note \($0)", body: String(repeating: "x", count: $0 * 10), stars: $0)
        }
        for note in notes where note.stars % 3 == 0 { note.folder = folder }
        try sender.store.commit(notes)
        try receiver.importChanges(from: try sender.exportChanges())
        try receiver.store.commit(SyncNote(title: "the receiver's own"))
        notes[1].title = "renamed"
        try sender.store.commit(notes[1])
        try sender.store.remove(notes[2])
        try sender.store.commit(SyncNote(title: "late"))
        return (sender, receiver)
    }

    /// Everything a failed import must leave alone.
    private static func dump(_ store: Store) throws -> [String] {
        try syncedContents(store)
            + ["SharkSyncState_SyncNote", "SharkSyncState_SyncFolder", "SharkSyncSite"].flatMap { entity in
                try store.fetchRows(of: entity).map {
                    "\(entity) " + $0.values.map(\.description).joined(separator: " ")
                }
            }.sorted()
    }

    private static func expectRefused(_ file: Data, key: ChangeLogKey? = nil, by receiver: SyncEngine, _ label: String)
        -> Bool
    {
        do {
            try receiver.importChanges(from: file, key: key)
            Issue.record("\(label): imported")
            return false
        } catch is SyncError {
            return true
        } catch {
            Issue.record("\(label): \(error) is not a SyncError")
            return false
        }
    }

    @Test(
        "every truncation and a few thousand bit flips are refused; the store is unchanged",
        arguments: TestDriver.allCases)
    func truncationsAndBitFlips(driver: TestDriver) throws {
        let (sender, receiver) = try Self.fixture(driver)
        defer {
            sender.store.close()
            receiver.store.close()
        }
        let before = try Self.dump(receiver.store)
        var files: [Data] = []
        for sealed in [true, false] {
            let key = sealed ? ChangeLogKey.random() : nil
            let file = try sender.exportChanges(since: try receiver.versionVector(), key: key)
            for length in 0..<file.count {
                guard Self.expectRefused(file.prefix(length), key: key, by: receiver, "truncated at \(length)") else {
                    return
                }
            }
            var random = SeededGenerator(state: sealed ? 7 : 11)
            for flip in 0..<2_000 {
                var damaged = file
                let bit = Int.random(in: 0..<file.count * 8, using: &random)
                damaged[bit / 8] ^= UInt8(1 << (bit % 8))
                guard Self.expectRefused(damaged, key: key, by: receiver, "flip \(flip) of bit \(bit)") else { return }
            }
            #expect(try Self.dump(receiver.store) == before)
            files.append(file)
        }
        // The intact files still apply: three rows (a rename, a removal, an insert).
        #expect(try receiver.importChanges(from: files[1]).rowsApplied == 3)
    }

    @Test("a future format version, another lineage and a wrong key are refused", arguments: TestDriver.allCases)
    func foreignFiles(driver: TestDriver) throws {
        let (sender, receiver) = try Self.fixture(driver)
        defer {
            sender.store.close()
            receiver.store.close()
        }
        let before = try Self.dump(receiver.store)
        var future = try sender.exportChanges()
        future[8] = 4  // the format version, little-endian, after the 8-byte magic
        #expect(throws: SyncError.unsupportedFormatVersion(4)) { try receiver.importChanges(from: future) }
        #expect(throws: SyncError.notAChangeLog) { try receiver.importChanges(from: Data("SQLite format 3".utf8)) }

        let other = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "elsewhere", models: [SyncNote.self, SyncFolder.self])
        defer { other.store.close() }
        try other.store.commit(SyncNote(title: "alien"))
        #expect(throws: SyncError.foreignLineage(expected: "files", found: "elsewhere")) {
            try receiver.importChanges(from: try other.exportChanges())
        }
        let key = ChangeLogKey.random()
        let sealed = try sender.exportChanges(key: key)
        #expect(throws: SyncError.wrongKey) { try receiver.importChanges(from: sealed, key: .random()) }
        #expect(throws: SyncError.self) { try receiver.importChanges(from: sealed) }
        #expect(throws: SyncError.self) { try ChangeLogKey(bytes: [UInt8](repeating: 1, count: 16)) }
        #expect(try Self.dump(receiver.store) == before)
    }

    @Test("declared sizes beyond the limits are refused before anything is inflated")
    func limits() throws {
        let (sender, receiver) = try Self.fixture(.memory)
        defer {
            sender.store.close()
            receiver.store.close()
        }
        let file = try sender.exportChanges()
        var limits = ChangeLogLimits()
        limits.maximumFrameBytes = 64
        #expect(throws: SyncError.self) { try receiver.importChanges(from: file, limits: limits) }
        limits = ChangeLogLimits()
        limits.maximumInflatedBytes = 100
        #expect(throws: SyncError.self) { try receiver.importChanges(from: file, limits: limits) }
        limits = ChangeLogLimits()
        limits.maximumHeaderBytes = 10
        #expect(throws: SyncError.self) { try receiver.importChanges(from: file, limits: limits) }
    }
}
