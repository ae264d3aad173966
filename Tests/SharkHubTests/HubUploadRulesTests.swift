import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import SharkHub
import SharkORM
import SharkSync
import Testing

/// The rules an upload follows beyond its bytes: who may continue it, what a device may claim,
/// how many it may leave unfinished, and how a long list is paged.
@Suite("Hub: upload rules")
struct HubUploadRulesTests {
    /// A sealed export of `device` since `since`, with its id.
    static func export(_ device: TestDevice, since: VersionVector = VersionVector()) async throws -> (Data, UUID) {
        let file = try await device.engine.exportChanges(since: since, key: sealingKey)
        return (file, try ChangeLogHeader(reading: file, key: sealingKey).fileID)
    }

    @Test(
        "a file one device is uploading is not another's to continue; a length must stay the same",
        arguments: HubStoreDriver.allCases)
    func ownership(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try laptop.write(noise(3000))
        let (file, id) = try await Self.export(laptop)
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            let uri = "/v1/spaces/notes/files/\(id)"
            let first = try await client.execute(
                uri: "\(uri)?offset=0&length=\(file.count)", method: .put, headers: laptop.authorization,
                body: ByteBuffer(data: file.prefix(500)))
            #expect(first.status == .accepted)
            let taken = try await client.execute(
                uri: "\(uri)?offset=500&length=\(file.count)", method: .put, headers: phone.authorization,
                body: ByteBuffer(data: file[500..<1000]))
            #expect(taken.status == .conflict)
            #expect(try client.refusal(taken).error == "fileTaken" && client.refusal(taken).received == nil)
            let otherLength = try await client.execute(
                uri: "\(uri)?offset=500&length=\(file.count + 1)", method: .put, headers: laptop.authorization,
                body: ByteBuffer(data: file[500..<1000]))
            #expect(otherLength.status == .unprocessableContent)
            // A chunk sent again (its answer lost) is answered with where the upload stands.
            let again = try await client.execute(
                uri: "\(uri)?offset=0&length=\(file.count)", method: .put, headers: laptop.authorization,
                body: ByteBuffer(data: file.prefix(500)))
            #expect(again.status == .accepted)
            #expect(try JSONDecoder().decode(UploadState.self, from: Data(buffer: again.body)).received == 500)
            let rest = try await client.execute(
                uri: "\(uri)?offset=500&length=\(file.count)", method: .put, headers: laptop.authorization,
                body: ByteBuffer(data: file.dropFirst(500)))
            #expect(rest.status == .ok)
            // The last chunk again, after the file was accepted: the same answer.
            let last = try await client.execute(
                uri: "\(uri)?offset=500&length=\(file.count)", method: .put, headers: laptop.authorization,
                body: ByteBuffer(data: file.dropFirst(500)))
            #expect(last.status == .ok)
            #expect(try JSONDecoder().decode(UploadState.self, from: Data(buffer: last.body)).sequence == 1)
        }
    }

    @Test(
        "a site is one device's; a file may not claim other sites' changes the hub never relayed",
        arguments: HubStoreDriver.allCases)
    func sites(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let tablet = try await TestDevice(hub: hub, name: "tablet")
        try laptop.write("a")
        try tablet.write("t")
        // The tablet takes the laptop's file by hand, not through the hub.
        let (byHand, _) = try await Self.export(laptop)
        _ = try await tablet.engine.importChanges(from: byHand, key: sealingKey)
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            let (claiming, claimingID) = try await Self.export(tablet)
            let (statuses, body) = try await client.upload(claiming, id: claimingID, headers: tablet.authorization)
            #expect(statuses.last == .unprocessableContent)
            #expect(try JSONDecoder().decode(HubErrorBody.self, from: Data(buffer: body)).error == "rejectedFile")
            // Once the hub relayed the laptop's changes, the same claim is fine.
            try await client.push(laptop)
            try await client.push(tablet)
            #expect(try await client.files(laptop).files.count == 2)
        }
        // The laptop's site is its own: no device may be added with it.
        let site = try #require(try await hub.devices(in: "notes").first { $0.name == "laptop" }?.site)
        await #expect(throws: HubError.self) { try await hub.addDevice(to: "notes", name: "copy", site: site) }
        #expect(try await storedCounts(hub).files == 2)
    }

    @Test("a device may leave only a few uploads unfinished")
    func pendingUploads() async throws {
        let hub = try await makeHub(.memory)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            for attempt in 0...HubLimits().maximumPendingUploads {
                let response = try await client.execute(
                    uri: "/v1/spaces/notes/files/\(UUID())?offset=0&length=1000", method: .put,
                    headers: laptop.authorization, body: ByteBuffer(repeating: 7, count: 200))
                let expected: HTTPResponse.Status =
                    attempt < HubLimits().maximumPendingUploads ? .accepted : .tooManyRequests
                #expect(response.status == expected, "upload \(attempt)")
            }
        }
    }

    @Test(
        "an unfinished upload expires and gives its bytes back; a device abandons its own, never an accepted file",
        arguments: HubStoreDriver.allCases)
    func expiryAndAbandon(driver: HubStoreDriver) async throws {
        let now = TestClock()
        var limits = HubLimits()
        limits.minimumChunkBytes = 100
        let hub = try await Hub(store: try driver.makeStore(), limits: limits) { now.date }
        let (pendingLimit, lifetime) = (limits.maximumPendingUploads, limits.unfinishedUploadLifetime)
        try await hub.createSpace("notes", lineage: TestDevice.lineage)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try laptop.write("a")
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            func start(_ device: TestDevice) async throws -> UUID {
                let id = UUID()
                let response = try await client.execute(
                    uri: "/v1/spaces/notes/files/\(id)?offset=0&length=1000", method: .put,
                    headers: device.authorization, body: ByteBuffer(repeating: 7, count: 200))
                #expect(response.status == .accepted)
                return id
            }
            // Four unfinished uploads fill the device's share; a day later they expire, and a
            // new upload sweeps them first.
            for _ in 0..<pendingLimit { _ = try await start(laptop) }
            #expect(try await storedCounts(hub).counted == 4000)
            now.date += lifetime + 1
            let fresh = try await start(laptop)
            #expect(try await storedCounts(hub).files == 1)
            #expect(try await storedCounts(hub).counted == 1000)
            // Another device's upload is not the laptop's to abandon; its own is.
            let phones = try await start(phone)
            let notMine = try await client.execute(
                uri: "/v1/spaces/notes/files/\(phones)", method: .delete, headers: laptop.authorization)
            #expect(try notMine.status == .conflict && client.refusal(notMine).error == "fileTaken")
            let abandoned = try await client.execute(
                uri: "/v1/spaces/notes/files/\(fresh)", method: .delete, headers: laptop.authorization)
            #expect(abandoned.status == .noContent)
            let gone = try await client.execute(
                uri: "/v1/spaces/notes/files/\(fresh)", method: .delete, headers: laptop.authorization)
            #expect(gone.status == .notFound)
            // An accepted file stays.
            let accepted = try await client.push(laptop)
            let kept = try await client.execute(
                uri: "/v1/spaces/notes/files/\(try #require(await client.files(laptop).files.first).fileID)",
                method: .delete, headers: laptop.authorization)
            #expect(try kept.status == .conflict && client.refusal(kept).error == "alreadyAccepted")
            #expect(accepted.sequence == 1)
        }
        // The sweep of every space: the phone's upload, a day old, goes too.
        now.date += limits.unfinishedUploadLifetime + 1
        #expect(try await hub.removeExpiredUploads() == 1)
        let stored = try await storedCounts(hub)
        #expect(stored.files == 1 && stored.counted == stored.bytes)
    }

    @Test("a long list comes in pages, in commit order", arguments: HubStoreDriver.allCases)
    func pages(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            for number in 0..<5 {
                try laptop.write("note \(number)")
                try await client.push(laptop)
            }
            var after: Int64 = 0
            var seen: [Int64] = []
            var pages = 0
            repeat {
                let response = try await client.execute(
                    uri: "/v1/spaces/notes/files?after=\(after)&limit=2", method: .get, headers: laptop.authorization)
                let page = try JSONDecoder().decode(HubFileList.self, from: Data(buffer: response.body))
                seen += page.files.map(\.sequence)
                after = page.next
                pages += 1
                if !page.hasMore { break }
            } while pages < 10
            #expect(seen == [1, 2, 3, 4, 5])
            #expect(pages == 3)
            for bad in ["limit=0", "limit=1001", "after=-1", "after=x", "limit=2.5"] {
                let response = try await client.execute(
                    uri: "/v1/spaces/notes/files?\(bad)", method: .get, headers: laptop.authorization)
                #expect(response.status == .badRequest, "\(bad)")
            }
        }
    }
}

/// A clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    var date = Date(timeIntervalSince1970: 1_800_000_000)
}
