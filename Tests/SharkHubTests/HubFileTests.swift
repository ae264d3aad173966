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

/// Devices push sealed files to the hub and pull each other's, through its HTTP API, on
/// every driver of the hub's own store.
@Suite("Hub: files pushed and pulled")
struct HubFileTests {
    @Test("two devices converge through the hub, files uploaded in chunks", arguments: HubStoreDriver.allCases)
    func twoDevicesConverge(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try laptop.write("a", "b", noise(10000))
        try phone.write("c")
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            // Small chunks: each but the last is answered 202, the last 200 with a sequence.
            let first = try await client.push(laptop, chunkSize: 100)
            #expect(first.sequence == 1)
            let second = try await client.push(phone)
            #expect(second.sequence == 2)
            try await client.pull(laptop)
            try await client.pull(phone)
            #expect(try laptop.texts() == phone.texts())
            #expect(try laptop.texts().count == 4)
            // What the hub holds covers both devices' vectors.
            let list = try await client.files(laptop)
            #expect(list.lastSequence == 2)
            #expect(list.files.map(\.sequence) == [1, 2])
            #expect(try await client.files(laptop, after: 1).files.map(\.sequence) == [2])
        }
    }

    @Test(
        "an upload cut off goes on from where the hub stands; a file sent twice is stored once",
        arguments: HubStoreDriver.allCases)
    func resumeAndDuplicates(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        try laptop.write(noise(5000))
        let file = try await laptop.engine.exportChanges(key: sealingKey)
        let id = try ChangeLogHeader(reading: file, key: sealingKey).fileID
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            let uri = "/v1/spaces/notes/files/\(id)"
            let first = try await client.execute(
                uri: "\(uri)?offset=0&length=\(file.count)", method: .put, headers: laptop.authorization,
                body: ByteBuffer(data: file.prefix(1000)))
            #expect(first.status == .accepted)
            // A chunk that skips ahead is refused with where the upload stands.
            let skipped = try await client.execute(
                uri: "\(uri)?offset=2000&length=\(file.count)", method: .put, headers: laptop.authorization,
                body: ByteBuffer(data: file[2000..<3000]))
            #expect(skipped.status == .conflict)
            let refusal = try client.refusal(skipped)
            #expect(refusal.error == "uploadOffset" && refusal.received == 1000)
            let rest = try await client.execute(
                uri: "\(uri)?offset=1000&length=\(file.count)", method: .put, headers: laptop.authorization,
                body: ByteBuffer(data: file.dropFirst(1000)))
            #expect(rest.status == .ok)
            // The same file again: accepted at once, with the same sequence, stored once.
            let again = try await client.upload(file, id: id, headers: laptop.authorization)
            #expect(again.statuses == [.ok])
            #expect(try JSONDecoder().decode(UploadState.self, from: Data(buffer: again.body)).sequence == 1)
            #expect(try await client.files(laptop).files.count == 1)
        }
        let stored = try await storedCounts(hub)
        #expect(stored.files == 1 && stored.bytes == Int64(file.count) && stored.counted == Int64(file.count))
    }

    @Test(
        "a file the hub cannot check, or that is not the device's, is refused and nothing is kept",
        arguments: HubStoreDriver.allCases)
    func refusedFiles(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try laptop.write("a")
        try phone.write("b")
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            func refused(_ file: Data, id: UUID, by device: TestDevice) async throws -> HubErrorBody? {
                let (statuses, body) = try await client.upload(file, id: id, headers: device.authorization)
                #expect(statuses.last == .unprocessableContent || statuses.last == .conflict)
                return try? JSONDecoder().decode(HubErrorBody.self, from: Data(buffer: body))
            }
            // Not sealed: the hub keeps only files it cannot read.
            let plain = try await laptop.engine.exportChanges()
            let plainID = try ChangeLogHeader(reading: plain).fileID
            #expect(try await refused(plain, id: plainID, by: laptop)?.error == "rejectedFile")
            // Damaged: one byte changed in the middle.
            var damaged = try await laptop.engine.exportChanges(key: sealingKey)
            let damagedID = try ChangeLogHeader(reading: damaged, key: sealingKey).fileID
            damaged[damaged.count / 2] ^= 0x40
            #expect(try await refused(damaged, id: damagedID, by: laptop)?.error == "rejectedFile")
            // Truncated: announced shorter than it is, so the last chunk ends early.
            let whole = try await laptop.engine.exportChanges(key: sealingKey)
            let wholeID = try ChangeLogHeader(reading: whole, key: sealingKey).fileID
            #expect(try await refused(whole.dropLast(10), id: wholeID, by: laptop)?.error == "rejectedFile")
            // Another lineage.
            let stranger = try SyncEngine(store: try Store(.memory), lineage: "other-app", models: [Note.self])
            try stranger.store.commit(Note("z"))
            let foreign = try await stranger.exportChanges(key: sealingKey)
            let foreignID = try ChangeLogHeader(reading: foreign, key: sealingKey).fileID
            #expect(try await refused(foreign, id: foreignID, by: laptop)?.error == "rejectedFile")
            // Under another id than its own.
            #expect(try await refused(whole, id: UUID(), by: laptop)?.error == "rejectedFile")
            // The laptop's file, once it is bound to the laptop, from the phone.
            try await client.push(laptop)
            try await client.push(phone)
            let laptops = try await laptop.engine.exportChanges(key: sealingKey)
            let laptopsID = try ChangeLogHeader(reading: laptops, key: sealingKey).fileID
            #expect(try await refused(laptops, id: laptopsID, by: phone)?.error == "rejectedFile")
            // A file assuming what the hub does not hold (since the phone's own vector, after
            // a write the hub never saw): 409, with what the hub holds.
            try phone.write("c")
            let gap = try await phone.engine.exportChanges(since: phone.engine.versionVector(), key: sealingKey)
            let gapID = try ChangeLogHeader(reading: gap, key: sealingKey).fileID
            let notCovered = try await refused(gap, id: gapID, by: phone)
            #expect(notCovered?.error == "notCovered")
            #expect(notCovered?.held?.isEmpty == false)
            #expect(try await client.files(laptop).files.count == 2)
        }
        let stored = try await storedCounts(hub)
        #expect(stored.files == 2 && stored.counted == stored.bytes)
    }
}
