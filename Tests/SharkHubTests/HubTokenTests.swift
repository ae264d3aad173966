import Crypto
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

/// Each device has its own token: a missing, malformed, unknown, wrong, revoked or another
/// space's token is refused, and nothing it sent is kept.
@Suite("Hub: device tokens")
struct HubTokenTests {
    @Test("a token is 256 random bits, shown once; only its SHA-256 is stored")
    func tokenText() async throws {
        let hub = try await makeHub(.memory)
        let token = try await hub.addDevice(to: "notes", name: "laptop")
        let text = token.bearerValue
        #expect(text.hasPrefix("shk1.\(token.device.uuidString.lowercased()).") && text.count == 5 + 36 + 1 + 43)
        #expect(DeviceToken(parsing: text) == token)
        #expect(!token.description.contains(text.suffix(43)))  // logs never show the secret
        // One spelling per token: no other case, padding or trailing bits.
        #expect(DeviceToken(parsing: text + "x") == nil)
        #expect(DeviceToken(parsing: text.uppercased()) == nil)
        #expect(DeviceToken(parsing: text + "=") == nil)
        #expect(DeviceToken(parsing: "shk1.\(token.device).AAAA") == nil)
        var lastBitsChanged = Array(text)
        lastBitsChanged[lastBitsChanged.count - 1] = lastBitsChanged.last == "A" ? "B" : "A"
        #expect(DeviceToken(parsing: String(lastBitsChanged)).map { $0 == token } != true)
        // The hub stores the secret's SHA-256, never the secret.
        var base64 = String(text.suffix(43)).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        base64 += "="
        let secret = try #require(Data(base64Encoded: base64))
        let rows = try hub.store.fetchRows(of: "hub_devices")
        #expect(rows.count == 1)
        #expect(rows[0]["secretDigest"] == .blob(Data(SHA256.hash(data: secret))))
        #expect(!rows[0].values.contains(.blob(secret)))
        #expect(try await hub.addDevice(to: "notes", name: "phone") != token)
        await #expect(throws: HubError.self) { try await hub.addDevice(to: "nowhere", name: "x") }
    }

    @Test("wrong, revoked and other spaces' tokens are refused at once", arguments: HubStoreDriver.allCases)
    func refusedTokens(driver: HubStoreDriver) async throws {
        let hub = try await makeHub(driver)
        try await hub.createSpace("other", lineage: "other-app")
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let outsider = try await hub.addDevice(to: "other", name: "outsider")
        try laptop.write("a")
        let file = try await laptop.engine.exportChanges(key: sealingKey)
        let id = try ChangeLogHeader(reading: file, key: sealingKey).fileID
        let forged = "shk1.\(laptop.token.device.uuidString.lowercased()).\(String(repeating: "A", count: 43))"
        let cases: [(String, HTTPFields, HTTPResponse.Status)] = [
            ("no token", [:], .unauthorized),
            ("not a bearer token", [.authorization: "Basic YTpi"], .unauthorized),
            ("malformed", [.authorization: "Bearer shk1.nonsense"], .unauthorized),
            ("unknown device", [.authorization: "Bearer \(try await Self.unknownToken().bearerValue)"], .unauthorized),
            ("wrong secret", [.authorization: "Bearer \(forged)"], .unauthorized),
            ("another space's", [.authorization: "Bearer \(outsider.bearerValue)"], .forbidden),
        ]
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            for (label, headers, status) in cases {
                let put = try await client.execute(
                    uri: "/v1/spaces/notes/files/\(id)?offset=0&length=\(file.count)", method: .put,
                    headers: headers, body: ByteBuffer(data: file))
                #expect(put.status == status, "\(label): \(String(buffer: put.body))")
                let list = try await client.execute(uri: "/v1/spaces/notes/files", method: .get, headers: headers)
                #expect(list.status == status, "\(label)")
            }
            try await client.push(laptop)
            try await hub.revokeDevice(laptop.token.device)
            let revoked = try await client.execute(
                uri: "/v1/spaces/notes/files", method: .get, headers: laptop.authorization)
            #expect(revoked.status == .forbidden)
            #expect(try client.refusal(revoked).error == "forbidden")
            let download = try await client.execute(
                uri: "/v1/spaces/notes/files/\(id)", method: .get, headers: laptop.authorization)
            #expect(download.status == .forbidden)
            let upload = try await client.execute(
                uri: "/v1/spaces/notes/files/\(UUID())?offset=0&length=10", method: .put,
                headers: laptop.authorization, body: ByteBuffer(repeating: 1, count: 10))
            #expect(upload.status == .forbidden)
            // The scheme's name in any case.
            let lowercase = try await client.execute(
                uri: "/v1/spaces/notes/files", method: .get,
                headers: [.authorization: "bearer \(try await hub.addDevice(to: "notes", name: "x").bearerValue)"])
            #expect(lowercase.status == .ok)
        }
        #expect(try await storedCounts(hub).files == 1)
        #expect(try await hub.devices(in: "notes").map(\.isRevoked) == [true, false])
    }

    /// A well-formed token of a device no hub knows.
    static func unknownToken() async throws -> DeviceToken {
        let elsewhere = try await makeHub(.memory)
        return try await elsewhere.addDevice(to: "notes", name: "elsewhere")
    }

    @Test("a chunk above 1 MiB, a file above the hub's largest or the space's quota: 413, nothing kept")
    func limits() async throws {
        let hub = try await makeHub(.memory, quotaBytes: 2000)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        try laptop.write(noise(10000))
        let file = try await laptop.engine.exportChanges(key: sealingKey)
        let id = try ChangeLogHeader(reading: file, key: sealingKey).fileID
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            let big = try await client.execute(
                uri: "/v1/spaces/notes/files/\(UUID())?offset=0&length=\(Hub.chunkLimit + 1)", method: .put,
                headers: laptop.authorization, body: ByteBuffer(repeating: 1, count: Hub.chunkLimit + 1))
            #expect(big.status == .contentTooLarge)
            let huge = try await client.execute(
                uri: "/v1/spaces/notes/files/\(UUID())?offset=0&length=\(Int64(1) << 40)", method: .put,
                headers: laptop.authorization, body: ByteBuffer(repeating: 1, count: 10))
            #expect(huge.status == .contentTooLarge)
            #expect(try client.refusal(huge).error == "tooLarge")
            #expect(file.count > 2000)
            let (statuses, body) = try await client.upload(file, id: id, headers: laptop.authorization)
            #expect(statuses == [.contentTooLarge])
            #expect(try JSONDecoder().decode(HubErrorBody.self, from: Data(buffer: body)).error == "quotaExceeded")
            for (uri, label) in [
                ("/v1/spaces/notes/files/\(id)?offset=0", "no length"),
                ("/v1/spaces/notes/files/\(id)?offset=x&length=10", "an offset that is no number"),
                ("/v1/spaces/notes/files/\(id)?offset=\(Int64.max)&length=100", "an offset that would overflow"),
                ("/v1/spaces/notes/files/\(id)?offset=0&length=1000", "a first chunk below the smallest"),
                ("/v1/spaces/notes/files/not-a-uuid?offset=0&length=10", "no UUID"),
                ("/v1/spaces/notes/files/\(id)?offset=-5&length=10", "negative offset"),
            ] {
                let response = try await client.execute(
                    uri: uri, method: .put, headers: laptop.authorization, body: ByteBuffer(repeating: 1, count: 10))
                #expect(response.status == .badRequest, "\(label)")
            }
        }
        let stored = try await storedCounts(hub)
        #expect(stored.files == 0 && stored.counted == 0)
    }
}
