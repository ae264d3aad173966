import ArgumentParser
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import SharkHub
import SharkHubAPI

/// `shark serve [HUB-DATABASE]`: runs a sync hub over HTTP.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a sync hub: devices push and pull sealed change logs through it (docs/hub.md).",
        discussion: """
            Examples:
              shark serve hub.sqlite
              shark serve postgresql://hub@db.internal/hub?schema=hub --password-env HUB_DB_PASSWORD \\
                --host 0.0.0.0 --port 8470 --plaintext-http-on-network --metrics-port 9470
              shark serve --config /etc/shark/hub.json

            Listens on 127.0.0.1:8470 unless told otherwise, and prints the address it listens on \
            to standard error. SIGTERM or SIGINT stops it after the requests under way. A SQLite \
            database serves one hub process (a second is refused); on PostgreSQL, any number of \
            hub processes share one database. The hub speaks plaintext HTTP: on an address other \
            than loopback, put a TLS reverse proxy in front of it (docs/hub.md) and say so with \
            --plaintext-http-on-network.

            Every setting may come from a JSON file (--config, or SHARK_SERVE_CONFIG), from the \
            environment (SHARK_SERVE_PORT, SHARK_SERVE_DATABASE, …) or from a flag, each \
            overriding the one before; docs/cli.md lists them. The database's password never \
            does: a setting names the file or the variable that holds it.
            """)

    @Argument(
        help: ArgumentHelp(
            "The hub's database: a SQLite file (created when missing) or a PostgreSQL URL without its password "
                + "(postgresql://user@host:port/database?schema=hub); else the settings' database.",
            valueName: "hub-database"))
    var database: String?

    @OptionGroup var password: PostgresPasswordOptions

    @Option(help: ArgumentHelp("A JSON file of settings (docs/cli.md).", valueName: "path")) var config: String?
    @Option(help: "The address to listen on (127.0.0.1).") var host: String?
    @Option(help: "The port to listen on, 0 for any free one (8470).") var port: Int?
    @Option(help: "Seconds a connection may stay idle before the hub closes it (60).") var idleTimeout: Int64?
    @Option(help: "How many connections the hub serves at once (1000).") var maximumConnections: Int?
    @Option(help: "Requests a device may make per minute, 0 for no limit (1200).") var deviceRequestsPerMinute: Int?
    @Option(help: "Requests an address may make per minute, 0 for no limit and behind a reverse proxy (3000).")
    var addressRequestsPerMinute: Int?
    @Option(help: "Days a device may go without syncing before the space goes on without it (90).")
    var staleAfterDays: Int64?
    @Option(help: "Serve GET /metrics (Prometheus's text format) on this port, 0 for any free one.")
    var metricsPort: Int?
    @Option(help: "The address the metrics listen on (127.0.0.1).") var metricsHost: String?
    @Option(help: "The least level logged: trace, debug, info, notice, warning, error, critical (info).")
    var logLevel: String?
    @Option(help: "text (swift-log's lines) or json (one object a line) (text).") var logFormat: String?

    @Flag(
        inversion: .prefixedNo,
        help: "Listen in plaintext HTTP on an address other than loopback (behind a TLS reverse proxy).")
    var plaintextHTTPOnNetwork: Bool?

    /// The settings of this run: defaults, then the file, the environment and the flags.
    func resolvedSettings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServeSettings {
        var settings = ServeSettings()
        if let file = config ?? environment["SHARK_SERVE_CONFIG"] { try settings.apply(file: file) }
        try settings.apply(environment: environment)
        let flags: [(String, ServeSettings.Value?)] = [
            ("database", database.map { .text($0) }),
            ("passwordFile", password.passwordFile.map { .text($0) }),
            ("passwordEnv", password.passwordEnv.map { .text($0) }),
            ("host", host.map { .text($0) }),
            ("port", port.map { .integer(Int64($0)) }),
            ("idleTimeout", idleTimeout.map { .integer($0) }),
            ("maximumConnections", maximumConnections.map { .integer(Int64($0)) }),
            ("deviceRequestsPerMinute", deviceRequestsPerMinute.map { .integer(Int64($0)) }),
            ("addressRequestsPerMinute", addressRequestsPerMinute.map { .integer(Int64($0)) }),
            ("staleAfterDays", staleAfterDays.map { .integer($0) }),
            ("metricsPort", metricsPort.map { .integer(Int64($0)) }),
            ("metricsHost", metricsHost.map { .text($0) }),
            ("logLevel", logLevel.map { .text($0) }),
            ("logFormat", logFormat.map { .text($0) }),
            ("plaintextHTTPOnNetwork", plaintextHTTPOnNetwork.map { .boolean($0) }),
        ]
        for (key, value) in flags {
            if let value { try settings.set(key, value, from: "--" + Self.flagName(key)) }
        }
        try Self.check(settings)
        return settings
    }

    /// `deviceRequestsPerMinute` → `device-requests-per-minute`.
    static func flagName(_ key: String) -> String {
        if key == "plaintextHTTPOnNetwork" { return "plaintext-http-on-network" }
        return key.reduce(into: "") { name, character in
            if character.isUppercase { name += "-" }
            name += character.lowercased()
        }
    }

    static func check(_ settings: ServeSettings) throws {
        func usage(_ message: String) -> CommandFailure { CommandFailure(message, exitCode: CommandFailure.usage) }
        guard settings.database != nil else {
            throw usage("name the hub's database: an argument, SHARK_SERVE_DATABASE or the settings file's database")
        }
        guard (0...65535).contains(settings.port) else { throw usage("the port is 0 to 65535") }
        if let metricsPort = settings.metricsPort {
            guard (0...65535).contains(metricsPort) else { throw usage("the metrics port is 0 to 65535") }
        }
        guard settings.idleTimeout > 0 else { throw usage("the idle timeout is at least 1 second") }
        guard settings.maximumConnections > 0 else { throw usage("the maximum of connections is at least 1") }
        guard settings.deviceRequestsPerMinute >= 0, settings.addressRequestsPerMinute >= 0 else {
            throw usage("requests per minute are 0 (no limit) or more")
        }
        _ = try ServeSettings.staleDeviceAge(days: settings.staleAfterDays)
        guard settings.metricsPort != nil || settings.metricsHost == ServeSettings().metricsHost else {
            throw usage("the metrics host is for a metrics port: give one too")
        }
        for host in [settings.host] + (settings.metricsPort == nil ? [] : [settings.metricsHost])
        where !LoopbackHost.contains(host) && !settings.plaintextHTTPOnNetwork {
            throw usage(
                "\(host) is not loopback: the hub speaks plaintext HTTP, so serve it behind a TLS reverse proxy "
                    + "and pass --plaintext-http-on-network")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try resolvedSettings()
            let logger = Self.logger(settings)
            var listener = HubListener(host: settings.host, port: settings.port)
            listener.idleTimeoutSeconds = settings.idleTimeout
            listener.maximumConnections = settings.maximumConnections
            let database = HubDatabase(
                path: settings.database ?? "",
                password: PostgresPasswordOptions.source(file: settings.passwordFile, environment: settings.passwordEnv)
            )
            try database.lockForServing()
            var limits = HubLimits()
            limits.requestsPerMinutePerDevice = settings.deviceRequestsPerMinute
            limits.requestsPerMinutePerAddress = settings.addressRequestsPerMinute
            limits.staleDeviceAge = try ServeSettings.staleDeviceAge(days: settings.staleAfterDays)
            let hub = try await database.open(limits: limits)
            defer { hub.store.close() }
            // The hub's metrics land in a registry of this run's, which the endpoint reads.
            let registry = PrometheusCollectorRegistry()
            let server = HubServer(hub: hub, metrics: PrometheusMetricsFactory(registry: registry))
            var services: [any Service] = []
            if let metricsPort = settings.metricsPort {
                let host = settings.metricsHost
                services.append(
                    MetricsEndpoint.application(registry: registry, host: host, port: metricsPort, logger: logger) {
                        port in Self.announce("metrics on http://\(host):\(port)/metrics", settings)
                    })
            }
            let host = settings.host
            try await server.serve(listener, logger: logger, alongside: services) { port in
                Self.announce("listening on http://\(host):\(port)", settings)
            }
        }
    }

    /// Where the hub listens, on standard error whatever the log level: a line of text, or
    /// with JSON logs a record like the others.
    static func announce(_ message: String, _ settings: ServeSettings) {
        switch settings.logFormat {
        case .text: Terminal.writeError("shark serve: " + message)
        case .json:
            JSONLogHandler(label: "shark-hub").log(
                event: LogEvent(
                    level: .notice, message: "\(message)", metadata: nil, source: "shark", file: #fileID,
                    function: #function, line: #line))
        }
    }

    /// The hub's logger: at the settings' level, as text or JSON lines on standard error.
    static func logger(_ settings: ServeSettings) -> Logger {
        var logger = Logger(label: "shark-hub") { label in
            switch settings.logFormat {
            case .text: return StreamLogHandler.standardError(label: label)
            case .json: return JSONLogHandler(label: label)
            }
        }
        logger.logLevel = settings.logLevel
        return logger
    }
}
