import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import SharkHub
import SharkHubAPI
import SharkHubClient
import SharkORM
import SharkSync
import Testing

/// Rotating a space's key through the hub: the hub reads each file's key id from its header
/// (without the key), and once it accepted a file sealed with a newer key it refuses files
/// sealed with older ones, so that nothing a device writes after the rotation reaches the hub
/// under a key a revoked device kept.
@Suite("Hub: rotating the space's key")
struct HubKeyRotationTests {
    /// The space's second key, which still opens the first key's files.
    static let rotatedKey = try! ChangeLogKey.random(id: 1).retiring([sealingKey])

    /// The newest key id the hub has accepted a file under, from its database.
    static func spaceKeyID(_ hub: Hub) throws -> Int64? {
        let space = try hub.store.fetchRows(of: "hub_spaces").first { $0.key == .text("notes") }
        guard case .integer(let id) = space?["keyID"] else { return nil }
        return id
    }

    /// The sealed export of `device` since what the hub holds, and its id.
    static func export(_ device: TestDevice, with key: ChangeLogKey, since held: [String: UInt64]) async throws
        -> (Data, UUID)
    {
        let since = VersionVector(Dictionary(uniqueKeysWithValues: held.map { (UUID(uuidString: $0.key)!, $0.value) }))
        let file = try await device.engine.exportChanges(since: since, key: key)
        return (file, try ChangeLogHeader(reading: file, key: key).fileID)
    }

    @Test(
        "after a file sealed with a newer key, one sealed with an older key is refused and nothing is stored",
        arguments: HubStoreDriver.allCases)
    func olderKeyRefused(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            try laptop.write("before the rotation")
            _ = try await client.push(laptop)
            #expect(try Self.spaceKeyID(hub) == 0)

            // The phone got the new key first.
            try phone.write("after the rotation")
            let (rotated, rotatedID) = try await Self.export(
                phone, with: Self.rotatedKey, since: try await client.files(phone).held)
            let (accepted, _) = try await client.upload(rotated, id: rotatedID, headers: phone.authorization)
            #expect(accepted.last == .ok)
            #expect(try Self.spaceKeyID(hub) == 1)

            // The laptop still seals with the old key: refused, and nothing of it kept.
            try laptop.write("sealed with the old key")
            let before = try await storedCounts(hub)
            let (old, oldID) = try await Self.export(
                laptop, with: sealingKey, since: try await client.files(laptop).held)
            let (statuses, body) = try await client.upload(
                old, id: oldID, headers: laptop.authorization, chunkSize: 200)
            #expect(statuses.last == .conflict)
            let refusal = try JSONDecoder().decode(HubErrorBody.self, from: Data(buffer: body))
            #expect(refusal.error == "retiredKey")
            #expect(try await storedCounts(hub) == before)
            #expect(try await client.files(laptop).files.count == 2)

            // Given the new key, the laptop's file goes through.
            let (resealed, resealedID) = try await Self.export(
                laptop, with: Self.rotatedKey, since: try await client.files(laptop).held)
            let (statusesAgain, _) = try await client.upload(resealed, id: resealedID, headers: laptop.authorization)
            #expect(statusesAgain.last == .ok)
            #expect(try Self.spaceKeyID(hub) == 1)

            // A key that skips ids (a slip: 3 for 2) is refused, and the space stays at 1.
            try laptop.write("sealed with key 3")
            let skipping = try ChangeLogKey.random(id: 3).retiring([Self.rotatedKey])
            let beforeSkip = try await storedCounts(hub)
            let (skipped, skippedID) = try await Self.export(
                laptop, with: skipping, since: try await client.files(laptop).held)
            let (skipStatuses, skipBody) = try await client.upload(
                skipped, id: skippedID, headers: laptop.authorization)
            #expect(skipStatuses.last == .unprocessableContent)
            #expect(try JSONDecoder().decode(HubErrorBody.self, from: Data(buffer: skipBody)).error == "rejectedFile")
            #expect(try await storedCounts(hub) == beforeSkip)
            #expect(try Self.spaceKeyID(hub) == 1)
        }
    }

    @Test("a device given the new key imports old and new files, and exports its pending file again under it")
    func clientsRotate() async throws {
        let hub = try await makeHub(.sqlite)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try laptop.write("laptop, first key")
        try phone.write(noise(300_000))
        try await SyncClientTests.withLiveHub(hub) { address in
            func client(_ device: TestDevice, key: ChangeLogKey, folder: URL? = nil) -> SyncClient {
                SyncClientTests.client(device, hub: address, folder: folder, key: key)
            }
            _ = try await client(laptop, key: sealingKey).sync()
            // The phone's upload under the first key is cut off: its bytes stay pending.
            let phoneFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "sync-client-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: phoneFolder) }
            await SyncClientTests.cutOffAfterFirstChunk(client(phone, key: sealingKey, folder: phoneFolder))

            // The laptop rotates, and its next file names key 1.
            try laptop.write("laptop, second key")
            let rotating = try await client(laptop, key: Self.rotatedKey, folder: folder).sync()
            #expect(rotating.filesPushed.count == 1)
            #expect(try Self.spaceKeyID(hub) == 1)

            // The phone, still on the first key, cannot open it: a typed error, nothing applied.
            let phoneTexts = try phone.texts()
            do {
                _ = try await client(phone, key: sealingKey, folder: phoneFolder).sync()
                Issue.record("a device without the new key imported its file")
            } catch {
                guard case .keyMismatch(let detail) = error as? SyncError else {
                    Issue.record("not a key mismatch: \(error)")
                    return
                }
                #expect(detail.reason == .unknownKeyID)
            }
            #expect(try phone.texts() == phoneTexts)

            // Given the new key, it reads both keys' files, and drops its pending file (sealed
            // with the old key) for a new export under the new one.
            let rotated = try await client(phone, key: Self.rotatedKey, folder: phoneFolder).sync()
            #expect(rotated.filesPulled == 1 && rotated.filesPushed.count == 1)
            _ = try await client(laptop, key: Self.rotatedKey, folder: folder).sync()
        }
        #expect(try laptop.texts() == phone.texts())
        #expect(try laptop.texts().count == 3)
        #expect(try await laptop.engine.digest() == phone.engine.digest())
        // The phone's dropped upload is gone from the hub; the three accepted files stay.
        let stored = try await storedCounts(hub)
        #expect(stored.files == 3 && stored.counted == stored.bytes)
    }
}
