import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `shark serve`'s settings from a file, the environment and flags; its metrics endpoint and
/// its JSON logs, run as an operator runs them.
@Suite("shark serve: settings, metrics and logs")
struct ServeSettingsTests {
    static func write(_ settings: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString).json").path
        try Data(settings.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("the environment overrides the file and a flag both; /metrics counts in Prometheus's format; logs are JSON")
    func layeredSettingsMetricsAndLogs() async throws {
        let database = HubCommandTests.temporaryDatabase()
        // The file alone would listen on every address, refused without a proxy's flag.
        let settings = try Self.write(
            #"{"database": "\#(database)", "host": "0.0.0.0", "port": 1, "metricsPort": 0, "logFormat": "json"}"#)
        defer {
            for path in [database, database + ".hub-lock", settings] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        let server = Process()
        server.executableURL = SharkProcess.executable
        server.arguments = ["serve", "--config", settings, "--port", "0"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SHARK_") }
        environment["SHARK_SERVE_HOST"] = "127.0.0.1"
        server.environment = environment
        let errors = Pipe()
        server.standardError = errors
        server.standardOutput = Pipe()
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        let started = Self.readUntil(errors.fileHandleForReading) { text in
            text.contains("listening on http://127.0.0.1:") && text.contains("/metrics\"")
        }
        let port = try #require(Self.port(after: "listening on http://127.0.0.1:", in: started), "\(started)")
        let metricsPort = try #require(Self.port(after: "metrics on http://127.0.0.1:", in: started), "\(started)")
        #expect(port != 1 && metricsPort != port)

        let (_, unauthorized) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/v1/spaces/notes/files")!)
        #expect((unauthorized as? HTTPURLResponse)?.statusCode == 401)
        let (ready, readyResponse) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/v1/ready")!)
        #expect((readyResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: ready, as: UTF8.self) == "ready")
        // Metrics on their own port, never the hub's.
        let (_, hidden) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        #expect((hidden as? HTTPURLResponse)?.statusCode == 404)
        let (metrics, metricsResponse) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(metricsPort)/metrics")!)
        #expect((metricsResponse as? HTTPURLResponse)?.statusCode == 200)
        let text = String(decoding: metrics, as: UTF8.self)
        #expect(text.contains(#"shark_hub_refusals_total{reason="unauthorized"} 1"#), "\(text)")
        #expect(text.contains(#"shark_hub_requests_total{"#), "\(text)")
        #expect(text.contains("shark_hub_request_duration_seconds_bucket{"), "\(text)")

        server.terminate()
        server.waitUntilExit()
        #expect(server.terminationStatus == 0)
        // Every line a JSON object; the refusal among them, with its reason as a field.
        let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let records = (started + rest).split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.contains { $0["message"] as? String == "refused" && $0["reason"] as? String == "unauthorized" })
        #expect(records.allSatisfy { $0["time"] != nil && $0["level"] != nil && $0["label"] as? String == "shark-hub" })
        // Where it listens is a record too: every line of standard error is JSON.
        #expect(records.contains { ($0["message"] as? String)?.hasPrefix("listening on http://127.0.0.1:") == true })
        #expect((started + rest).split(separator: "\n").allSatisfy { $0.hasPrefix("{") }, "\(started + rest)")
    }

    @Test("a setting that is unknown, of the wrong kind or missing is refused, naming where it came from")
    func badSettings() throws {
        let database = HubCommandTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: database) }
        let cases: [(settings: String?, environment: [String: String], arguments: [String], message: String)] = [
            (#"{"prot": 8000}"#, [:], [database], #"unknown setting "prot""#),
            (#"{"password": "secret"}"#, [:], [database], "passwordFile or passwordEnv"),
            (#"{"port": "eighty"}"#, [:], [database], "port is an integer"),
            (#"{"port": 80.5}"#, [:], [database], "port is an integer"),
            (#"{"plaintextHTTPOnNetwork": 1}"#, [:], [database], "plaintextHTTPOnNetwork is true or false"),
            (#"[1, 2]"#, [:], [database], "not a JSON object of settings"),
            (nil, ["SHARK_SERVE_PORT": "abc"], [database], "SHARK_SERVE_PORT: port is an integer"),
            (nil, ["SHARK_SERVE_LOG_LEVEL": "loud"], [database], "logLevel is trace, debug"),
            (nil, ["SHARK_SERVE_PROT": "80"], [database], "SHARK_SERVE_PROT names no setting"),
            (#"{"passwordFile": "a", "passwordEnv": "B"}"#, [:], [database], "give the password one way"),
            (nil, [:], [database, "--metrics-host", "127.0.0.2"], "give one too"),
            // A flag turns off what the file turned on.
            (
                #"{"host": "0.0.0.0", "plaintextHTTPOnNetwork": true}"#, [:],
                [database, "--no-plaintext-http-on-network"], "reverse proxy"
            ),
            (nil, [:], ["--port", "0"], "name the hub's database"),
            (nil, [:], [database, "--port", "70000"], "the port is 0 to 65535"),
            (#"{"staleAfterDays": 0}"#, [:], [database], "stale after 1 to 36,500 days"),
            (nil, ["SHARK_SERVE_STALE_AFTER_DAYS": "9223372036854775807"], [database], "stale after 1 to 36,500 days"),
            (nil, [:], [database, "--metrics-port", "0", "--metrics-host", "0.0.0.0"], "reverse proxy"),
        ]
        for (settings, environment, arguments, message) in cases {
            var extra: [String] = []
            if let settings { extra = ["--config", try Self.write(settings)] }
            defer { if let path = extra.last { try? FileManager.default.removeItem(atPath: path) } }
            let run = try SharkProcess.run(["serve"] + arguments + extra, environment: environment)
            // A file that is not settings at all is bad data (65); the rest, bad usage.
            let expected: Int32 = settings == "[1, 2]" ? 65 : 64
            #expect(run.status == expected, "\(arguments) \(environment): \(run.error)")
            #expect(run.error.contains(message), "\(run.error)")
        }
        // Nothing was created for a run refused before it began.
        #expect(!FileManager.default.fileExists(atPath: database))
        let missing = try SharkProcess.run(["serve", database, "--config", "/nonexistent/hub.json"])
        #expect(missing.status == 66 && missing.error.contains("/nonexistent/hub.json"))
    }

    /// Standard error read until `done` holds for all of it (or the process ends, or a minute).
    static func readUntil(_ handle: FileHandle, _ done: (String) -> Bool) -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !done(text) {
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        return text
    }

    static func port(after prefix: String, in text: String) -> Int? {
        guard let range = text.range(of: prefix) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }
}
