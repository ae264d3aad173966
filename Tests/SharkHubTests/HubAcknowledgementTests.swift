import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import SharkHub
import SharkHubClient
import SharkORM
import SharkSync
import Testing

/// What the devices of a space have applied: each acknowledges its vector, the space's
/// acknowledged vector is the least of its active devices', and a device silent past the
/// stale age stops holding it back until it catches up.
@Suite("Hub: acknowledged vectors and stale devices")
struct HubAcknowledgementTests {
    @Test(
        "the space's vector is the least of its active devices'; a stale one is refused until it catches up",
        arguments: HubStoreDriver.allCases)
    func acknowledgedAndStale(driver: HubStoreDriver) async throws {
        let now = TestClock()
        var limits = HubLimits()
        limits.minimumChunkBytes = 100
        limits.staleDeviceAge = 30 * 24 * 3600
        let hub = try await Hub(store: try driver.makeStore(), limits: limits) { now.date }
        try await hub.createSpace("notes", lineage: TestDevice.lineage)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        let tablet = try await TestDevice(hub: hub, name: "tablet")
        try laptop.write("a", "b")
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            func acknowledge(_ device: TestDevice, _ vector: VersionVector? = nil) async throws -> TestResponse {
                var sent = try await device.engine.versionVector()
                if let vector { sent = vector }
                let body = try JSONEncoder().encode(
                    AcknowledgedVector(
                        vector: Dictionary(uniqueKeysWithValues: sent.entries.map { ($0.key.uuidString, $0.value) })))
                return try await client.execute(
                    uri: "/v1/spaces/notes/acknowledged", method: .put, headers: device.authorization,
                    body: ByteBuffer(data: body))
            }
            func answer(_ response: TestResponse) throws -> SpaceAcknowledgement {
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return try JSONDecoder().decode(SpaceAcknowledgement.self, from: Data(buffer: response.body))
            }
            func space(as device: TestDevice) async throws -> SpaceAcknowledgement {
                try answer(
                    try await client.execute(
                        uri: "/v1/spaces/notes/acknowledged", method: .get, headers: device.authorization))
            }
            let laptopSite = laptop.engine.site.uuidString

            try await client.push(laptop)
            try await client.pull(phone)
            let first = try answer(try await acknowledge(laptop))
            #expect(first.device == [laptopSite: 1])
            // The phone and the tablet never acknowledged: they count as having applied nothing.
            #expect(first.space == [:] && first.activeDevices == 3 && first.staleDevices == 0)
            #expect(first.staleAfterSeconds == 30 * 24 * 3600)
            #expect(try answer(try await acknowledge(phone)).space == [:])
            try await hub.revokeDevice(tablet.token.device)
            #expect(try await space(as: laptop).space == [laptopSite: 1])
            #expect(try await hub.acknowledgedVector(of: "notes") == laptop.engine.versionVector())
            // A device added and never synced holds the space's vector at nothing, until the
            // stale age has passed since it was added.
            let late = try await TestDevice(hub: hub, name: "late")
            #expect(try await space(as: laptop).space == [:])

            // What the hub does not hold is not acknowledged: a site it never heard of, or
            // more of one than its files hold.
            var claimed = try await laptop.engine.versionVector()
            claimed[UUID()] = 99
            claimed[laptop.engine.site] = 1000
            #expect(try answer(try await acknowledge(phone, claimed)).device == [laptopSite: 1])

            // The laptop keeps syncing; the phone goes silent past the stale age.
            now.date += 20 * 24 * 3600
            try laptop.write("c")
            try await client.push(laptop)
            _ = try answer(try await acknowledge(laptop))
            now.date += 20 * 24 * 3600
            let withoutPhone = try await space(as: laptop)
            // The phone is stale; the device that never synced no longer counts, and is not stale.
            #expect(withoutPhone.activeDevices == 1 && withoutPhone.staleDevices == 1)
            #expect(withoutPhone.space == [laptopSite: 2])
            func device(_ name: String) async throws -> HubDeviceInfo {
                try #require(try await hub.devices(in: "notes").first { $0.name == name })
            }
            #expect(try await device("phone").isStale)
            #expect(try await !device("laptop").isStale)
            #expect(try await !device("late").isStale)
            #expect(try await device("laptop").lastSync == now.date - 20 * 24 * 3600)

            // The stale phone may read and send acknowledgements, nothing else.
            let before = try await storedCounts(hub)
            try phone.write("offline")
            let file = try await phone.engine.exportChanges(key: sealingKey)
            let fileID = try ChangeLogHeader(reading: file, key: sealingKey).fileID
            let laptopFile = try await client.files(laptop).files[0].fileID
            let refused = [
                try await client.execute(uri: "/v1/spaces/notes/files", method: .get, headers: phone.authorization),
                try await client.execute(
                    uri: "/v1/spaces/notes/files/\(fileID)?offset=0&length=\(file.count)", method: .put,
                    headers: phone.authorization, body: ByteBuffer(data: file)),
                try await client.execute(
                    uri: "/v1/spaces/notes/files/\(laptopFile)", method: .get,
                    headers: phone.authorization),
            ]
            for response in refused {
                #expect(response.status == .gone)
                #expect(try client.refusal(response).error == "stale")
            }
            #expect(try await storedCounts(hub) == before)
            #expect(try await space(as: phone).device == [laptopSite: 1])
            // A vector that does not cover what the others applied leaves it stale and its
            // acknowledgement as it was, even with a device just added (which holds the
            // space's vector at nothing, but not the mark).
            let newcomer = try await TestDevice(hub: hub, name: "newcomer")
            #expect(try await space(as: newcomer).space == [:])
            let behind = try await acknowledge(phone)
            #expect(behind.status == .gone)
            #expect(try await device("phone").isStale)
            #expect(try await space(as: phone).device == [laptopSite: 1])

            // Caught up from a full export of the laptop, it is active again.
            _ = try await phone.engine.importChanges(
                from: try await laptop.engine.exportChanges(key: sealingKey), key: sealingKey)
            let back = try answer(try await acknowledge(phone))
            #expect(back.activeDevices == 3 && back.staleDevices == 0 && back.space == [:])
            #expect(try await client.files(phone).files.count == 2)
            // The file it exported while behind is refused: devices that forgot removals the
            // laptop made could not import it. A fresh export is accepted.
            let old = try await client.upload(file, id: fileID, headers: phone.authorization)
            #expect(old.statuses.last == .conflict)
            #expect(try JSONDecoder().decode(HubErrorBody.self, from: Data(buffer: old.body)).error == "notCovered")
            #expect(try await client.push(phone).sequence == 3)

            // The device that never synced joins like a new one: it lists and pulls, then counts.
            try await client.pull(late)
            try await client.pull(newcomer)
            _ = try answer(try await acknowledge(newcomer))
            let joined = try answer(try await acknowledge(late))
            #expect(joined.activeDevices == 4 && joined.space == [laptopSite: 2])
        }
    }

    @Test("a sync ends with the device's acknowledgement, and can forget the tombstones every device has seen")
    func syncAcknowledgesAndForgets() async throws {
        let hub = try await makeHub(.memory)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try laptop.write("keep", "remove")
        try await SyncClientTests.withLiveHub(hub) { address in
            let laptopClient = SyncClientTests.client(laptop, hub: address)
            var phoneOptions = SyncClientTests.client(phone, hub: address).options
            phoneOptions.forgetsTombstones = true
            let phoneClient = SyncClient(
                engine: phone.engine, hub: address, space: "notes", token: phone.token, key: sealingKey,
                options: phoneOptions)
            let pushed = try await laptopClient.sync()
            // The phone has not acknowledged yet: nothing every device applied.
            #expect(pushed.acknowledged == VersionVector())
            _ = try await phoneClient.sync()
            let removed = try #require(try await Note.query(in: phone.engine.store).where(\.text == "remove").first())
            try phone.engine.store.remove(removed)
            let removal = try await phoneClient.sync()
            // The laptop has not applied the removal: its tombstone stays.
            #expect(removal.filesPushed.count == 1 && removal.tombstonesForgotten == 0)
            let laptopSync = try await laptopClient.sync()
            #expect(laptopSync.acknowledged == (try await phone.engine.versionVector()))
            let forgetting = try await phoneClient.sync()
            #expect(forgetting.tombstonesForgotten == 1)
            #expect(forgetting.acknowledged == (try await laptop.engine.versionVector()))
            // Past the forgetting, both go on: the phone's files carry its horizon, which the
            // laptop covers.
            try laptop.write("later")
            _ = try await laptopClient.sync()
            #expect(try await phoneClient.sync().filesPulled == 1)
            try phone.write("from the phone")
            _ = try await phoneClient.sync()
            #expect(try await laptopClient.sync().filesPulled == 1)
        }
        #expect(try laptop.texts() == ["from the phone", "keep", "later"] && phone.texts() == laptop.texts())
        let (laptopDigest, phoneDigest) = (try await laptop.engine.digest(), try await phone.engine.digest())
        #expect(laptopDigest == phoneDigest)
    }
}
