import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import SharkORM
import SharkSync
import Testing

@testable import SharkHub

/// Requests per minute of each device and each address: over the limit, `429 rateLimited`
/// with `Retry-After`, and nothing of the request is kept.
@Suite("Hub: rate limits")
struct HubRateLimitTests {
    static func hub(perDevice: Int = 0, perAddress: Int = 0) async throws -> Hub {
        var limits = HubLimits()
        limits.minimumChunkBytes = 100
        limits.requestsPerMinutePerDevice = perDevice
        limits.requestsPerMinutePerAddress = perAddress
        let hub = try await Hub(store: try Store(.memory), limits: limits)
        try await hub.createSpace("notes", lineage: TestDevice.lineage)
        return hub
    }

    @Test("a device over its requests per minute gets 429 with Retry-After; another device does not")
    func perDevice() async throws {
        let hub = try await Self.hub(perDevice: 3)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try laptop.write("a")
        let file = try await laptop.engine.exportChanges(key: sealingKey)
        let id = try ChangeLogHeader(reading: file, key: sealingKey).fileID
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            for _ in 0..<3 { _ = try await client.files(laptop) }
            let limited = try await client.execute(
                uri: "/v1/spaces/notes/files/\(id)?offset=0&length=\(file.count)", method: .put,
                headers: laptop.authorization, body: ByteBuffer(data: file))
            #expect(limited.status == .tooManyRequests)
            #expect(try client.refusal(limited).error == "rateLimited")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try await client.files(phone).files.isEmpty)
        }
        // The refused upload left nothing.
        let stored = try await storedCounts(hub)
        #expect(stored.files == 0 && stored.bytes == 0 && stored.counted == 0)
    }

    @Test("an address over its requests per minute gets 429 before its token is read; health is not counted")
    func perAddress() async throws {
        let hub = try await Self.hub(perAddress: 2)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        // Live: the address is the connection's peer.
        try await Application(router: HubServer(hub: hub).router()).test(.live) { client in
            for _ in 0..<5 {
                #expect(try await client.execute(uri: "/v1/health", method: .get).status == .ok)
            }
            for _ in 0..<2 {
                let answer = try await client.execute(
                    uri: "/v1/spaces/notes/files", method: .get, headers: laptop.authorization)
                #expect(answer.status == .ok)
            }
            // Even without a token: the address is counted first.
            let limited = try await client.execute(uri: "/v1/spaces/notes/files", method: .get)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)
        }
    }

    @Test("a limiter lets a full minute through at once, then one request every 60/n seconds")
    func refill() {
        let now = Clock()
        let limiter = RateLimiter(perMinute: 60) { now.seconds }
        for _ in 0..<60 { #expect(limiter.spend("a") == nil) }
        #expect(limiter.spend("a") == 1)
        #expect(limiter.spend("b") == nil)
        now.seconds += 1
        #expect(limiter.spend("a") == nil)
        #expect(limiter.spend("a") == 1)
        now.seconds += 3600  // idle: full again, never more than a minute's worth
        for _ in 0..<60 { #expect(limiter.spend("a") == nil) }
        #expect(limiter.spend("a") != nil)
        #expect(RateLimiter(perMinute: 0).spend("a") == nil)
    }

    final class Clock: @unchecked Sendable {
        var seconds: Double = 1000
    }
}
