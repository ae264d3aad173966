import Foundation
import SharkHub
import SharkHubAPI
import SharkHubClient
import SharkORM
import SharkSync
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The client against a real hub listening on loopback: what an app does, over HTTP.
@Suite("Hub: SyncClient over a live hub")
struct SyncClientTests {
    /// Runs `body` with the address of `hub` served on a free loopback port, then stops it.
    static func withLiveHub<T: Sendable>(
        _ hub: Hub, listener: HubListener = HubListener(host: "127.0.0.1", port: 0), _ body: (URL) async throws -> T
    ) async throws -> T {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let server = Task {
            try await HubServer(hub: hub).serve(listener) { port in
                continuation.yield(port)
                continuation.finish()
            }
        }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        do {
            let result = try await body(URL(string: "http://127.0.0.1:\(port)")!)
            server.cancel()
            _ = await server.result
            return result
        } catch {
            server.cancel()
            _ = await server.result
            throw error
        }
    }

    /// Runs a sync of `client` that is cancelled once the hub holds its upload's first chunk.
    static func cutOffAfterFirstChunk(_ client: SyncClient) async {
        let cut = Task {
            try await client.sync { step in
                if case .uploading = step { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        await #expect(throws: (any Error).self) { try await cut.value }
    }

    /// A client for `device` with a state folder of its own and small chunks.
    static func client(
        _ device: TestDevice, hub address: URL, folder: URL? = nil, chunkBytes: Int = 64 << 10,
        key: ChangeLogKey = sealingKey
    ) -> SyncClient {
        var options = SyncClient.Options(
            stateFolder: folder
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("sync-client-\(UUID().uuidString)"))
        options.chunkBytes = chunkBytes
        options.retry = RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(20))
        // A refused connection is tried again by the HTTP client until this deadline.
        options.requestTimeout = .seconds(2)
        return SyncClient(
            engine: device.engine, hub: address, space: "notes", token: device.token, key: key, options: options)
    }

    @Test(
        "three devices converge through a live hub, a large file in several chunks",
        arguments: [HubStoreDriver.sqlite, .postgres])
    func threeDevicesConverge(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        let devices = [
            try await TestDevice(hub: hub, name: "laptop"), try await TestDevice(hub: hub, name: "phone"),
            try await TestDevice(hub: hub, name: "tablet"),
        ]
        try devices[0].write("a", noise(300_000))
        try devices[1].write("b")
        try devices[2].write("c", "d")
        try await Self.withLiveHub(hub) { address in
            let clients = devices.map { Self.client($0, hub: address) }
            let first = try await clients[0].sync()
            #expect(first.filesPushed == [1] && first.filesPulled == 0)
            #expect(first.bytesUploaded > 200_000)  // base64 noise compresses to 3/4
            _ = try await clients[1].sync()
            _ = try await clients[2].sync()
            try devices[1].write("e")
            for client in clients + clients { _ = try await client.sync() }
            // Nothing left to move.
            let quiet = try await clients[0].sync()
            #expect(quiet.filesPulled == 0 && quiet.filesPushed.isEmpty)
        }
        let expected = try devices[0].texts()
        #expect(expected.count == 6)
        for device in devices {
            #expect(try device.texts() == expected)
            #expect(try await device.engine.digest() == devices[0].engine.digest())
        }
    }

    @Test("an upload cut off resumes with the same bytes; a lost state folder downloads nothing again")
    func resumeAndLostState() async throws {
        let hub = try await makeHub(.sqlite)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try laptop.write(noise(400_000))
        try phone.write("from the phone")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.withLiveHub(hub) { address in
            let client = Self.client(laptop, hub: address, folder: folder)
            await Self.cutOffAfterFirstChunk(client)
            let pending = try Data(contentsOf: folder.appendingPathComponent("pending.sharklog"))
            let resumed = try await client.sync()
            #expect(resumed.filesPushed == [1])
            // Only what the hub lacked went again.
            #expect(resumed.bytesUploaded < Int64(pending.count))
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("pending.sharklog").path))
            #expect(try await storedCounts(hub).bytes == Int64(pending.count))

            _ = try await Self.client(phone, hub: address).sync()
            _ = try await client.sync()
            // The folder lost: the hub's files are listed again, none downloaded again.
            try FileManager.default.removeItem(at: folder)
            let again = try await client.sync()
            #expect(again.filesPulled == 0 && again.filesSkipped == 2 && again.filesPushed.isEmpty)
        }
        #expect(try laptop.texts().count == 2)
    }

    @Test("an upload whose bytes were lost is abandoned on the hub, and the changes exported again")
    func lostPendingBytes() async throws {
        let hub = try await makeHub(.sqlite)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        try laptop.write(noise(300_000))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.withLiveHub(hub) { address in
            let client = Self.client(laptop, hub: address, folder: folder)
            await Self.cutOffAfterFirstChunk(client)
            #expect(try await storedCounts(hub).files == 1)  // begun, unfinished
            try FileManager.default.removeItem(at: folder.appendingPathComponent("pending.sharklog"))
            let report = try await client.sync()
            #expect(report.filesPushed == [1])
        }
        // Only the accepted file is left, and the quota counts only it.
        let stored = try await storedCounts(hub)
        #expect(stored.files == 1 && stored.counted == stored.bytes)
    }

    @Test("a state folder that went past files of one hub lists another hub (or a restored one) from the start")
    func anotherHub() async throws {
        let first = try await makeHub(.memory)
        let second = try await makeHub(.memory)
        let laptop = try await TestDevice(hub: first, name: "laptop")
        let phone = try await TestDevice(hub: second, name: "phone")
        let laptopOnSecond = try await second.addDevice(to: "notes", name: "laptop")
        try laptop.write("a")
        try phone.write("x", "y")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.withLiveHub(first) { firstAddress in
            try await Self.withLiveHub(second) { secondAddress in
                #expect(try await Self.client(laptop, hub: firstAddress, folder: folder).sync().filesPushed == [1])
                #expect(try await Self.client(phone, hub: secondAddress).sync().filesPushed == [1])
                // The same folder, the second hub: its file 1 is another file than the first's.
                var options = SyncClient.Options(stateFolder: folder)
                options.retry = .never
                let moved = SyncClient(
                    engine: laptop.engine, hub: secondAddress, space: "notes", token: laptopOnSecond, key: sealingKey,
                    options: options)
                let report = try await moved.sync()
                #expect(report.filesPulled == 1 && report.filesPushed == [2])
            }
        }
        #expect(try laptop.texts() == ["a", "x", "y"])
    }

    @Test("a revoked token, a wrong space, an unreachable hub, plaintext off loopback and a busy folder")
    func failures() async throws {
        let hub = try await makeHub(.memory)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        try laptop.write("x")
        try await Self.withLiveHub(hub) { address in
            let elsewhere = SyncClient(
                engine: laptop.engine, hub: address, space: "other", token: laptop.token, key: sealingKey)
            let wrongSpace = await #expect(throws: SyncClientError.self) { try await elsewhere.sync() }
            #expect(wrongSpace?.reason == .forbidden)
            try await hub.revokeDevice(laptop.token.device)
            let error = await #expect(throws: SyncClientError.self) {
                try await Self.client(laptop, hub: address).sync()
            }
            #expect(error?.reason == .forbidden && error?.status == 403)
        }
        var unreachable = Self.client(laptop, hub: URL(string: "http://127.0.0.1:1")!)
        let gone = await #expect(throws: SyncClientError.self) { try await unreachable.sync() }
        #expect(gone?.reason == .unavailable)

        unreachable = SyncClient(
            engine: laptop.engine, hub: URL(string: "http://hub.example.com")!, space: "notes", token: laptop.token,
            key: sealingKey)
        let plaintext = await #expect(throws: SyncClientError.self) { try await unreachable.sync() }
        #expect(plaintext?.reason == .insecureAddress)
        // A name that begins like a loopback address is a name: no plaintext to it either.
        unreachable = SyncClient(
            engine: laptop.engine, hub: URL(string: "http://127.example.com")!, space: "notes", token: laptop.token,
            key: sealingKey)
        let lookalike = await #expect(throws: SyncClientError.self) { try await unreachable.sync() }
        #expect(lookalike?.reason == .insecureAddress)

        // Another sync (here: another process's lock) holds the folder.
        let client = Self.client(laptop, hub: URL(string: "http://127.0.0.1:1")!)
        try FileManager.default.createDirectory(at: client.stateFolder, withIntermediateDirectories: true)
        let descriptor = open(client.stateFolder.appendingPathComponent("lock").path, O_RDWR | O_CREAT, 0o600)
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        defer { close(descriptor) }
        let busy = await #expect(throws: SyncClientError.self) { try await client.sync() }
        #expect(busy?.reason == .busy)
    }
}

@Test("loopback is localhost, 127.0.0.0/8 and ::1, parsed, never a prefix of a name")
func loopbackHosts() {
    for host in ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1"] {
        #expect(LoopbackHost.contains(host), "\(host)")
    }
    for host in [
        "127.example.com", "127.0.0.1.example.com", "128.0.0.1", "0.0.0.0", "::", "10.0.0.1", "example.com", "",
    ] {
        #expect(!LoopbackHost.contains(host), "\(host)")
    }
    #expect(HubListener(host: "127.0.0.2").isLoopback && !HubListener(host: "127.evil.example").isLoopback)
}
