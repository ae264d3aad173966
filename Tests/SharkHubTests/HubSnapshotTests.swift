import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import SharkHub
import SharkHubAPI
import SharkHubClient
@_spi(SharkReplication) import SharkORM
import SharkSync
import Synchronization
import Testing

/// Snapshots and retention: a device joining late starts from a sealed full export another
/// device uploaded; the hub counts a snapshot only once a device other than its uploader
/// verified it (an equal digest tag under its vector), and then drops the files the snapshot
/// and every counted device cover.
@Suite("Hub: snapshots, verification and dropping old files")
struct HubSnapshotTests {
    /// A sealed full export of `device`, its id, and the tag of the digest it carries.
    static func snapshot(of device: TestDevice) async throws -> (file: Data, id: UUID, tag: String) {
        let file = try await device.engine.exportChanges(key: sealingKey)
        let header = try ChangeLogHeader(reading: file, key: sealingKey)
        let digest = try #require(header.digest)
        let tag = try #require(sealingKey.digestTag(of: digest, keyID: header.keyID))
        return (file, header.fileID, hexadecimal(tag))
    }

    static func entries(_ vector: VersionVector) -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: vector.entries.map { ($0.key.uuidString, $0.value) })
    }

    @Test(
        "a snapshot is a full export of what the hub holds; verified by another device, it lets the hub drop the files it and every device cover",
        arguments: HubStoreDriver.allCases)
    func verificationAndRetention(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            func uploadSnapshot(_ snapshot: (file: Data, id: UUID, tag: String), as device: TestDevice) async throws
                -> TestResponse
            {
                try await client.execute(
                    uri: "/v1/spaces/notes/snapshots/\(snapshot.id)?offset=0&length=\(snapshot.file.count)"
                        + "&tag=\(snapshot.tag)", method: .put, headers: device.authorization,
                    body: ByteBuffer(data: snapshot.file))
            }
            func verify(_ id: UUID, as device: TestDevice, vector: VersionVector, tag: String) async throws
                -> TestResponse
            {
                try await client.execute(
                    uri: "/v1/spaces/notes/snapshots/\(id)/verification", method: .put, headers: device.authorization,
                    body: ByteBuffer(
                        data: try JSONEncoder().encode(SnapshotVerification(vector: Self.entries(vector), tag: tag))))
            }
            func acknowledge(_ device: TestDevice) async throws {
                let body = try JSONEncoder().encode(
                    AcknowledgedVector(vector: Self.entries(try await device.engine.versionVector())))
                let response = try await client.execute(
                    uri: "/v1/spaces/notes/acknowledged", method: .put, headers: device.authorization,
                    body: ByteBuffer(data: body))
                #expect(response.status == .ok)
            }

            try laptop.write("one", "two")
            _ = try await client.push(laptop)
            try laptop.write("three")
            _ = try await client.push(laptop)
            try await client.pull(phone)

            // Refused, nothing kept: an export since a vector, and one holding a change the
            // hub does not hold yet.
            let before = try await storedCounts(hub)
            let partial = try await laptop.engine.exportChanges(
                since: try await phone.engine.versionVector(), key: sealingKey)
            let partialID = try ChangeLogHeader(reading: partial, key: sealingKey).fileID
            let notFull = try await uploadSnapshot((partial, partialID, String(repeating: "0", count: 64)), as: laptop)
            #expect(notFull.status == .unprocessableContent)
            try laptop.write("not pushed")
            let ahead = try await uploadSnapshot(try await Self.snapshot(of: laptop), as: laptop)
            #expect(ahead.status == .conflict)
            #expect(try client.refusal(ahead).error == "notCovered")
            #expect(try await storedCounts(hub) == before)
            _ = try await client.push(laptop)
            try await client.pull(phone, after: 2)

            // Accepted, listed, not verified; its uploader cannot verify it.
            let first = try await Self.snapshot(of: laptop)
            let accepted = try await uploadSnapshot(first, as: laptop)
            #expect(accepted.status == .ok, "\(String(buffer: accepted.body))")
            var listed = try await client.files(phone)
            #expect(listed.snapshot?.fileID == first.id && listed.snapshot?.isVerified == false)
            #expect(listed.snapshot?.number == 1 && listed.bytesSinceSnapshot == 0 && listed.dropped == nil)
            #expect(listed.files.count == 3)  // snapshots are not among the files
            let vector = try await laptop.engine.versionVector()
            #expect(try await verify(first.id, as: laptop, vector: vector, tag: first.tag).status == .badRequest)

            // Another vector says nothing; another digest under the same vector drops it.
            let other = try await verify(first.id, as: phone, vector: VersionVector(), tag: first.tag)
            #expect(other.status == .conflict)
            #expect(try client.refusal(other).error == "digestMismatch")
            #expect(try await client.files(phone).snapshot?.fileID == first.id)
            let wrong = try await verify(first.id, as: phone, vector: vector, tag: String(repeating: "0", count: 64))
            #expect(wrong.status == .conflict)
            #expect(try client.refusal(wrong).error == "digestMismatch")
            #expect(try await client.files(phone).snapshot == nil)
            #expect(try await storedCounts(hub).files == 3)

            // Uploaded again and verified by the phone, whose vector is the snapshot's.
            let second = try await Self.snapshot(of: laptop)
            #expect(try await uploadSnapshot(second, as: laptop).status == .ok)
            #expect(try await phone.engine.versionVector() == vector)
            let verified = try await verify(second.id, as: phone, vector: vector, tag: second.tag)
            #expect(verified.status == .ok, "\(String(buffer: verified.body))")
            listed = try await client.files(phone)
            #expect(listed.snapshot?.isVerified == true && listed.snapshot?.number == 2)
            // Nothing dropped while a device has not acknowledged what it applied.
            #expect(try await hub.dropCoveredFiles(in: "notes") == 0)
            try await acknowledge(laptop)
            try await acknowledge(phone)
            #expect(try await hub.dropCoveredFiles(in: "notes") == 3)
            listed = try await client.files(phone)
            #expect(listed.files.isEmpty && listed.lastSequence == 3)
            #expect(listed.dropped == Self.entries(vector))
            let stored = try await storedCounts(hub)
            #expect(stored.files == 1 && stored.counted == stored.bytes)  // the snapshot alone

            // A new device starts from the snapshot, which holds everything dropped.
            let tablet = try await TestDevice(hub: hub, name: "tablet")
            let download = try await client.execute(
                uri: "/v1/spaces/notes/snapshots/\(second.id)", method: .get, headers: tablet.authorization)
            #expect(download.status == .ok)
            _ = try await tablet.engine.importChanges(from: Data(buffer: download.body), key: sealingKey)
            #expect(try tablet.texts() == laptop.texts())
            // A newer snapshot is listed first; the verified one stays until it is verified.
            #expect(try await uploadSnapshot(try await Self.snapshot(of: phone), as: phone).status == .ok)
            listed = try await client.files(tablet)
            #expect(listed.snapshot?.number == 3 && listed.snapshot?.isVerified == false)
            #expect(try await storedCounts(hub).files == 2)
        }
    }

    /// A client of `device` that uploads a snapshot as soon as any file came since the last
    /// (`snapshots`), or never.
    static func client(_ device: TestDevice, hub address: URL, snapshots: Bool = true) -> SyncClient {
        var options = SyncClientTests.client(device, hub: address).options
        options.snapshotAfterBytes = snapshots ? 1 : 0
        return SyncClient(
            engine: device.engine, hub: address, space: "notes", token: device.token, key: sealingKey,
            options: options)
    }

    @Test(
        "devices upload and verify snapshots as they sync; a device joining after the files were dropped starts from the snapshot",
        arguments: [HubStoreDriver.sqlite, .postgres])
    func joiningLate(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try laptop.write("a", noise(200_000))
        try phone.write("b")
        try await SyncClientTests.withLiveHub(hub) { address in
            let laptopClient = Self.client(laptop, hub: address, snapshots: false)
            let phoneClient = Self.client(phone, hub: address)
            #expect(try await laptopClient.sync().filesPushed.count == 1)
            #expect(try await laptopClient.sync().filesSkipped == 1)  // its own
            // The phone pulls, pushes, and (files having come since the last) uploads a snapshot.
            let uploading = try await phoneClient.sync()
            #expect(uploading.filesPulled == 1 && uploading.snapshotUploaded == 1)
            // The laptop pulls the phone's file; its vector is then the snapshot's, and it
            // verifies it there (downloaded and imported, digests compared).
            let pulling = try await laptopClient.sync()
            #expect(pulling.filesPulled == 1 && pulling.snapshotVerified != nil && pulling.snapshotImported == nil)
            // The verification dropped the first file, which both devices had acknowledged;
            // the second goes once the laptop acknowledged it too (at the end of that sync).
            #expect(try await hub.dropCoveredFiles(in: "notes") == 1)
            #expect(try await storedCounts(hub).files == 1)

            // A new device: the files are gone, the snapshot holds them.
            let tablet = try await TestDevice(hub: hub, name: "tablet")
            try tablet.write("c")
            let joined = try await Self.client(tablet, hub: address).sync()
            #expect(joined.snapshotImported != nil && joined.filesPulled == 0)
            #expect(joined.filesPushed.count == 1)
            // The laptop's last file was dropped: it lists on after it, not from the start.
            let steps = Steps()
            let after = try await laptopClient.sync { steps.append($0) }
            #expect(after.filesPulled == 1 && !steps.all.contains(.listing(after: 0)))
            _ = try await phoneClient.sync()
            #expect(try tablet.texts() == laptop.texts())
        }
        let expected = try laptop.texts()
        #expect(expected.count == 4)
        #expect(try phone.texts() == expected)
        #expect(try await phone.engine.digest() == laptop.engine.digest())
    }

    @Test("a device joining from a snapshot nobody verified yet verifies it with its own digest")
    func newDeviceVerifies() async throws {
        let hub = try await makeHub(.sqlite)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        try laptop.write("a", "b")
        try await SyncClientTests.withLiveHub(hub) { address in
            let laptopClient = Self.client(laptop, hub: address)
            _ = try await laptopClient.sync()
            #expect(try await laptopClient.sync().snapshotUploaded == 1)
            let tablet = try await TestDevice(hub: hub, name: "tablet")
            let joined = try await Self.client(tablet, hub: address).sync()
            #expect(joined.snapshotImported != nil && joined.snapshotVerified == joined.snapshotImported)
            #expect(joined.filesSkipped == 1 && joined.filesPulled == 0)
            #expect(try tablet.texts() == laptop.texts())
            #expect(try await tablet.engine.digest() == laptop.engine.digest())
        }
    }
}

/// The steps a sync reported, in order.
final class Steps: Sendable {
    private let steps = Mutex<[SyncProgress]>([])
    func append(_ step: SyncProgress) { steps.withLock { $0.append(step) } }
    var all: [SyncProgress] { steps.withLock { $0 } }
}
