import Foundation
import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

@Suite("Sync: references to rows removed elsewhere")
struct SyncDanglingReferenceTests {
    private static func replica(_ driver: TestDriver, site: Int) throws -> SyncEngine {
        try syncReplica(driver, site: site, lineage: "dangling", models: [SyncNote.self, SyncFolder.self])
    }

    @Test(
        "a child added where its parent was removed elsewhere keeps its key, reads nil, is listed, and holds again when the parent returns",
        arguments: TestDriver.allCases)
    func keptAndListed(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncFolder(id: "inbox", name: "Inbox"))
        try b.importChanges(from: try a.exportChanges())

        // Concurrently: a removes the folder, b files a new note in it.
        try a.store.remove(try #require(try a.store.find(SyncFolder.self, id: "inbox")))
        let note = SyncNote(title: "filed offline")
        note.folder = try b.store.find(SyncFolder.self, id: "inbox")
        try b.store.commit(note)
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        try a.importChanges(from: try b.exportChanges(since: try a.versionVector()))

        let expected = [
            DanglingReference(
                entity: "SyncNote", key: .blob(withUnsafeBytes(of: note.id.uuid) { Data($0) }), column: "folder",
                target: "SyncFolder", targetKey: .text("inbox"))
        ]
        for replica in [a, b] {
            #expect(try replica.danglingReferences() == expected)
            let copy = try #require(try replica.store.find(SyncNote.self, id: note.id))
            #expect(copy.folder == nil)
        }
        #expect(try syncedContents(a.store) == syncedContents(b.store))

        // The folder comes back under the same key: the reference holds again, everywhere.
        try a.store.commit(SyncFolder(id: "inbox", name: "Inbox again"))
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        for replica in [a, b] {
            #expect(try replica.danglingReferences().isEmpty)
            #expect(try replica.store.find(SyncNote.self, id: note.id)?.folder?.name == "Inbox again")
        }
    }

    @Test("the list is read a page at a time and names every dangling key in key order")
    func pages() throws {
        let sync = try Self.replica(.sqlite, site: 1)
        defer { sync.store.close() }
        let folders = (0..<3).map { SyncFolder(id: "f\($0)", name: "folder \($0)") }
        try sync.store.commit(folders)
        var notes: [SyncNote] = []
        for index in 0..<(SyncEngine.danglingPage * 2 + 10) {
            let note = SyncNote(title: "n\(index)")
            note.folder = folders[index % 3]
            notes.append(note)
        }
        try sync.store.commit(notes)
        // Removing a folder whose relationship is optional nullifies its notes here: the
        // dangling ones are made as an import would leave them, by writing the column alone.
        try sync.store.write { tx in
            _ = try tx.deleteRow(withKey: .text("f1"), from: "SyncFolder")
        }
        let dangling = try sync.danglingReferences()
        let expected = notes.filter { $0.folder?.id == "f1" }
            .map { note in withUnsafeBytes(of: note.id.uuid) { Data($0) } }
            .sorted { $0.lexicographicallyPrecedes($1) }
            .map(Value.blob)
        #expect(dangling.map(\.key) == expected)
        #expect(dangling.allSatisfy { $0.targetKey == .text("f1") && $0.column == "folder" })
    }
}
