import CoreMetrics
import Foundation
import HTTPTypes

/// What a hub counts, through swift-metrics: the app that serves the hub picks the backend
/// (`shark serve --metrics-port` exposes them to Prometheus; docs/hub.md lists them). The
/// names follow Prometheus's conventions, and no label carries a space's name, a device or a
/// file: a metrics backend sees how the hub is used, not by whom.
///
/// - `shark_hub_requests_total{route, method, status}` and
///   `shark_hub_request_duration_seconds{route, method}`: every request, its route the path's
///   pattern (`/v1/spaces/{space}/files/{file}`), until its handler answers;
/// - `shark_hub_refusals_total{reason}`: each ``HubError`` answered, by reason;
/// - `shark_hub_files_accepted_total`, `shark_hub_received_bytes_total` (the chunks of
///   uploads answered, a chunk sent again counted again) and `shark_hub_sent_bytes_total`:
///   what moved through the hub;
/// - `shark_hub_expired_uploads_removed_total`: unfinished uploads swept after their lifetime.
struct HubMetrics: Sendable {
    let factory: any MetricsFactory
    // The counters without labels, made once: they move on every chunk.
    private let filesAccepted: Counter
    private let receivedBytes: Counter
    private let sentBytes: Counter
    private let expiredUploads: Counter

    init(factory: any MetricsFactory) {
        self.factory = factory
        filesAccepted = Counter(label: "shark_hub_files_accepted_total", factory: factory)
        receivedBytes = Counter(label: "shark_hub_received_bytes_total", factory: factory)
        sentBytes = Counter(label: "shark_hub_sent_bytes_total", factory: factory)
        expiredUploads = Counter(label: "shark_hub_expired_uploads_removed_total", factory: factory)
    }

    func request(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, nanoseconds: UInt64) {
        Counter(
            label: "shark_hub_requests_total",
            dimensions: [("route", route), ("method", method.rawValue), ("status", String(status.code))],
            factory: factory
        ).increment()
        Timer(
            label: "shark_hub_request_duration_seconds", dimensions: [("route", route), ("method", method.rawValue)],
            preferredDisplayUnit: .seconds, factory: factory
        ).recordNanoseconds(Int64(clamping: nanoseconds))
    }

    func refused(_ reason: HubError.Reason) {
        Counter(label: "shark_hub_refusals_total", dimensions: [("reason", reason.rawValue)], factory: factory)
            .increment()
    }

    func fileAccepted() {
        filesAccepted.increment()
    }

    func received(bytes: Int) {
        receivedBytes.increment(by: Int64(bytes))
    }

    func sent(bytes: Int) {
        sentBytes.increment(by: Int64(bytes))
    }

    func expiredUploadsRemoved(_ count: Int) {
        expiredUploads.increment(by: Int64(count))
    }
}
