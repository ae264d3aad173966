import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SharkHub
import SharkORM
import SharkSync
import SharkTestSupport
import Testing

/// Two hubs on one PostgreSQL database, as two hub processes of a deployment are: they share
/// every state, so a device may talk to either.
@Suite("Hub: two hubs on one database")
struct HubProcessesTests {
    @Test("files pushed at once through two hubs get distinct sequences; a revocation holds on both")
    func twoHubs() async throws {
        let path = "/tmp/hub-\(UUID().uuidString)"
        var limits = HubLimits()
        limits.minimumChunkBytes = 100
        let first = try await Hub(store: try PostgresTestServer.conformance.openFile(path), limits: limits)
        let second = try await Hub(store: try PostgresTestServer.conformance.openFile(path), limits: limits)
        defer {
            first.store.close()
            second.store.close()
        }
        try await first.createSpace("notes", lineage: TestDevice.lineage)
        var devices: [TestDevice] = []
        for number in 0..<6 {
            let device = try await TestDevice(hub: number % 2 == 0 ? first : second, name: "device \(number)")
            try device.write(noise(2000), "from \(number)")
            devices.append(device)
        }
        let ready = devices
        try await Application(router: HubServer(hub: first).router()).test(.router) { one in
            try await Application(router: HubServer(hub: second).router()).test(.router) { two in
                let sequences = try await withThrowingTaskGroup(of: Int64?.self) { group in
                    for (number, device) in ready.enumerated() {
                        let client = number % 2 == 0 ? one : two
                        group.addTask { try await client.push(device, chunkSize: 500).sequence }
                    }
                    return try await group.reduce(into: [Int64]()) { $0.append($1 ?? 0) }
                }
                #expect(sequences.sorted() == Array(1...6))
                // Each device pulls through the other hub, and all agree.
                for (number, device) in ready.enumerated() {
                    try await (number % 2 == 0 ? two : one).pull(device)
                }
                let contents = try ready.map { try $0.texts() }
                #expect(contents.allSatisfy { $0 == contents[0] } && contents[0].count == 12)
                // Acknowledgements at once through both hubs: each writes the space's row, so
                // concurrent ones conflict and run again, and none is lost.
                let rounds = 3
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (number, device) in ready.enumerated() {
                        let client = number % 2 == 0 ? one : two
                        group.addTask {
                            let vector = try await device.engine.versionVector()
                            let body = try JSONEncoder().encode(
                                AcknowledgedVector(
                                    vector: Dictionary(
                                        uniqueKeysWithValues: vector.entries.map { ($0.key.uuidString, $0.value) })))
                            for _ in 0..<rounds {
                                let response = try await client.execute(
                                    uri: "/v1/spaces/notes/acknowledged", method: .put, headers: device.authorization,
                                    body: ByteBuffer(data: body))
                                #expect(response.status == .ok, "\(String(buffer: response.body))")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let space = try first.store.fetchRows(of: "hub_spaces").first { $0.key == .text("notes") }
                #expect(space?["acknowledgements"] == .integer(Int64(ready.count * rounds)))
                #expect(try await second.acknowledgedVector(of: "notes") == ready[0].engine.versionVector())
                // Revoked through the first hub, refused at once by the second.
                try await first.revokeDevice(ready[1].token.device)
                let refused = try await two.execute(
                    uri: "/v1/spaces/notes/files", method: .get, headers: ready[1].authorization)
                #expect(refused.status == .forbidden)
            }
        }
    }
}
