import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MetricsTestKit
import NIOCore
import SharkHub
import SharkORM
import SharkSync
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an operator sees of a hub: its metrics (swift-metrics) and its readiness.
@Suite("Hub: metrics and readiness")
struct HubObservabilityTests {
    @Test("requests are counted by route pattern, refusals by reason, files and bytes as they move")
    func metrics() async throws {
        let hub = try await makeHub(.memory)
        let laptop = try await TestDevice(hub: hub, name: "laptop")
        let phone = try await TestDevice(hub: hub, name: "phone")
        try laptop.write("a", "b", noise(3000))
        let metrics = TestMetrics()
        let length = try await Application(router: HubServer(hub: hub, metrics: metrics).router()).test(.router) {
            client in
            let pushed = try await client.push(laptop, chunkSize: 1000)
            try await client.pull(phone)
            // Refused: no token, then a file id that is not one.
            _ = try await client.execute(uri: "/v1/spaces/notes/files", method: .get)
            _ = try await client.execute(
                uri: "/v1/spaces/notes/files/nope", method: .get, headers: phone.authorization)
            return pushed.length
        }
        let chunks = (length + 999) / 1000
        let route = "/v1/spaces/{space}/files/{file}"
        #expect(
            metrics.counterTotal(
                label: "shark_hub_requests_total", dimensions: [("route", route), ("method", "PUT"), ("status", "202")])
                == chunks - 1)
        #expect(
            metrics.counterTotal(
                label: "shark_hub_requests_total", dimensions: [("route", route), ("method", "PUT"), ("status", "200")])
                == 1)
        #expect(
            metrics.counterTotal(
                label: "shark_hub_requests_total", dimensions: [("route", route), ("method", "GET"), ("status", "200")])
                == 1)
        // No label holds a space, a device or a file: only patterns.
        for counter in metrics.counters(label: "shark_hub_requests_total") {
            let labels = Dictionary(uniqueKeysWithValues: counter.dimensions)
            #expect(labels["route"]?.hasPrefix("/v1/") == true)
            #expect(labels["route"]?.contains("notes") == false)
        }
        #expect(!metrics.timers(label: "shark_hub_request_duration_seconds").isEmpty)
        #expect(metrics.counterTotal(label: "shark_hub_files_accepted_total") == 1)
        #expect(metrics.counterTotal(label: "shark_hub_received_bytes_total") == length)
        #expect(metrics.counterTotal(label: "shark_hub_sent_bytes_total") == length)
        #expect(
            metrics.counterTotal(label: "shark_hub_refusals_total", dimensions: [("reason", "unauthorized")]) == 1)
        #expect(metrics.counterTotal(label: "shark_hub_refusals_total", dimensions: [("reason", "badRequest")]) == 1)
    }

    @Test("a hub is ready while its database answers; then 503 unavailable, while health stays 200")
    func readiness() async throws {
        let hub = try await makeHub(.sqlite)
        try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
            let ready = try await client.execute(uri: "/v1/ready", method: .get)
            #expect(ready.status == .ok)
            #expect(String(buffer: ready.body) == "ready")
            hub.store.close()
            let closed = try await client.execute(uri: "/v1/ready", method: .get)
            #expect(closed.status == .serviceUnavailable)
            #expect(try client.refusal(closed).error == "unavailable")
            #expect(try await client.execute(uri: "/v1/health", method: .get).status == .ok)
        }
    }

    @Test("listener settings at their extremes serve rather than trap", arguments: [Int64.max, 0, -1])
    func extremeListener(idleTimeoutSeconds: Int64) async throws {
        let hub = try await makeHub(.memory)
        var listener = HubListener(host: "127.0.0.1", port: 0)
        listener.idleTimeoutSeconds = idleTimeoutSeconds
        listener.maximumConnections = idleTimeoutSeconds == .max ? .max : 0
        let status = try await SyncClientTests.withLiveHub(hub, listener: listener) { address in
            let (_, response) = try await URLSession.shared.data(from: address.appending(path: "v1/health"))
            return (response as? HTTPURLResponse)?.statusCode
        }
        #expect(status == 200)
    }
}
