import ArgumentParser
import Foundation
import SharkHub

/// `shark serve HUB-DATABASE`: runs a sync hub over HTTP.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a sync hub: devices push and pull sealed change logs through it (docs/hub.md).",
        discussion: """
            Examples:
              shark serve hub.sqlite
              shark serve postgresql://hub@db.internal/hub?schema=hub --password-env HUB_DB_PASSWORD \\
                --host 0.0.0.0 --port 8470 --plaintext-http-on-network

            Listens on 127.0.0.1:8470 unless told otherwise, and prints the address it listens on \
            to standard error. SIGTERM or SIGINT stops it after the requests under way. A SQLite \
            database serves one hub process (a second is refused); on PostgreSQL, any number of \
            hub processes share one database. The hub speaks plaintext HTTP: on an address other \
            than loopback, put a TLS reverse proxy in front of it (docs/hub.md) and say so with \
            --plaintext-http-on-network.
            """)

    @OptionGroup var database: HubDatabaseOptions

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on (0 for any free one).") var port = 8470
    @Option(help: "Seconds a connection may stay idle before the hub closes it.") var idleTimeout: Int64 = 60
    @Option(help: "How many connections the hub serves at once.") var maximumConnections = 1000
    @Option(help: "Requests a device may make per minute (0: no limit).") var deviceRequestsPerMinute = 1200
    @Option(help: "Requests an address may make per minute (0: no limit; 0 behind a reverse proxy).")
    var addressRequestsPerMinute = 3000

    @Flag(help: "Listen in plaintext HTTP on an address other than loopback (behind a TLS reverse proxy).")
    var plaintextHTTPOnNetwork = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port is 0 to 65535") }
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout is at least 1 second") }
        guard maximumConnections > 0 else { throw ValidationError("--maximum-connections is at least 1") }
        guard deviceRequestsPerMinute >= 0, addressRequestsPerMinute >= 0 else {
            throw ValidationError("requests per minute are 0 (no limit) or more")
        }
    }

    func run() async throws {
        try await reportingFailures {
            var listener = HubListener(host: host, port: port)
            listener.idleTimeoutSeconds = idleTimeout
            listener.maximumConnections = maximumConnections
            guard listener.isLoopback || plaintextHTTPOnNetwork else {
                throw CommandFailure(
                    "\(host) is not loopback: the hub speaks plaintext HTTP, so serve it behind a TLS reverse proxy "
                        + "and pass --plaintext-http-on-network", exitCode: CommandFailure.usage)
            }
            try database.lockForServing()
            var limits = HubLimits()
            limits.requestsPerMinutePerDevice = deviceRequestsPerMinute
            limits.requestsPerMinutePerAddress = addressRequestsPerMinute
            let hub = try await database.open(limits: limits)
            defer { hub.store.close() }
            let host = self.host
            try await HubServer(hub: hub).serve(listener) { port in
                Terminal.writeError("shark serve: listening on http://\(host):\(port)")
            }
        }
    }
}
