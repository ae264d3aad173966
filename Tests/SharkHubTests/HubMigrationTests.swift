import Foundation
import SharkHub
import SharkHubClient
import SharkORM
import SharkSync
import SharkTestSupport
import Testing

/// `Note` one migration later: a column the first version does not have.
@Model(entity: "Note")
final class NoteV2 {
    var id: UUID = UUID()
    var text: String = ""
    var pinned: Bool = false

    init(_ text: String, pinned: Bool) {
        self.text = text
        self.pinned = pinned
    }
}

/// A device whose app is a migration behind the others' receives files whose values it cannot
/// apply yet: it keeps them, and its vector does not claim them. Through a hub it must not
/// download them again, nor vouch for content it does not hold.
@Suite("Hub: a device one migration behind")
struct HubMigrationTests {
    @Test(
        "a device a migration behind downloads each file once and neither uploads nor verifies a snapshot; its migration claims what it kept"
    )
    func deviceBehind() async throws {
        let hub = try await makeHub(.sqlite)
        let newer = try SyncEngine(store: try Store(.memory), lineage: TestDevice.lineage, models: [NoteV2.self])
        let newerToken = try await hub.addDevice(to: "notes", name: "new app")
        let olderToken = try await hub.addDevice(to: "notes", name: "old app")
        let joinerToken = try await hub.addDevice(to: "notes", name: "old app, joining")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hub-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("old-app.sqlite").path
        let stateFolder = folder.appendingPathComponent("old-app-state")

        func client(
            _ engine: SyncEngine, _ token: DeviceToken, _ address: URL, state: URL? = nil, snapshots: Bool = true
        ) -> SyncClient {
            var options = SyncClient.Options(
                stateFolder: state ?? folder.appendingPathComponent("state-\(UUID().uuidString)"))
            options.retry = RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(20))
            options.requestTimeout = .seconds(2)
            // A snapshot as soon as any file came since the last, or none.
            options.snapshotAfterBytes = snapshots ? 1 : 0
            return SyncClient(
                engine: engine, hub: address, space: "notes", token: token, key: sealingKey, options: options)
        }
        let newerState = folder.appendingPathComponent("new-app-state")

        try await SyncClientTests.withLiveHub(hub) { address in
            let newerClient = client(newer, newerToken, address, state: newerState, snapshots: false)
            try newer.store.commit(NoteV2("first", pinned: true))
            #expect(try await newerClient.sync().filesPushed == [1])
            try newer.store.commit(NoteV2("second", pinned: true))
            #expect(try await newerClient.sync().filesPushed == [2])

            do {
                let store = try TestDriver.sqlite.openFile(database)
                defer { store.close() }
                let older = try SyncEngine(store: store, lineage: TestDevice.lineage, models: [Note.self])
                let olderClient = client(older, olderToken, address, state: stateFolder)
                try store.commit(Note("from the old app"))
                let first = try await olderClient.sync()
                #expect(first.filesPulled == 2 && first.filesPushed == [3])
                // Its vector does not claim the newer app's changes, its received vector does.
                #expect(try await older.versionVector()[newer.site] == 0)
                #expect(try await older.receivedVector().covers(try await newer.versionVector()))
                // Its full export would lack the values it keeps: no snapshot from it.
                #expect(first.snapshotUploaded == nil)
                // Its state folder lost, it lists every file again and downloads none.
                try FileManager.default.removeItem(at: stateFolder)
                let again = try await olderClient.sync()
                #expect(again.filesPulled == 0 && again.filesSkipped == 3 && again.snapshotUploaded == nil)
            }

            // The newer app pulls the old one's note and uploads a snapshot.
            let uploading = try await client(newer, newerToken, address, state: newerState).sync()
            #expect(uploading.filesPulled == 1 && uploading.snapshotUploaded != nil)
            // A device of the old app joins from it: it starts there, downloads no file the
            // snapshot holds, and does not verify what it cannot hold whole.
            let joiner = try SyncEngine(store: try Store(.memory), lineage: TestDevice.lineage, models: [Note.self])
            let joined = try await client(joiner, joinerToken, address).sync()
            #expect(joined.snapshotImported != nil && joined.snapshotVerified == nil)
            #expect(joined.filesPulled == 0 && joined.filesSkipped == 3)
            #expect(try await Note.query(in: joiner.store).count() == 3)

            // The old app updates: the migration applies what it kept, its vector claims it,
            // nothing is downloaded again, and it can now vouch for the snapshot.
            let store = try TestDriver.sqlite.openFile(database)
            defer { store.close() }
            let migrated = try SyncEngine(store: store, lineage: TestDevice.lineage, models: [NoteV2.self])
            #expect(try await migrated.versionVector() == (try await newer.versionVector()))
            let after = try await client(migrated, olderToken, address, state: stateFolder).sync()
            #expect(after.filesPulled == 0 && after.snapshotVerified != nil)
            #expect(try await NoteV2.query(in: store).where(\.pinned == true).count() == 2)
            #expect(try await migrated.digest() == (try await newer.digest()))
        }
    }
}
