import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

/// `shark serve --metrics-port`: `GET /metrics` answers what the hub counted (docs/hub.md,
/// "Metrics") in Prometheus's text format, on an address and port of its own, so that the
/// hub's own port never exposes it to devices.
enum MetricsEndpoint {
    /// The endpoint's server, a service to run beside the hub's.
    static func application(
        registry: PrometheusCollectorRegistry, host: String, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) -> Void
    ) -> any Service {
        let router = Router()
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "shark-hub-metrics"),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
