import Foundation
import Logging

/// What `shark serve` runs with, gathered from four places, each overriding the one before:
/// the defaults, a JSON file (`--config` or `SHARK_SERVE_CONFIG`), the environment
/// (`SHARK_SERVE_PORT`, …) and the command line's flags. A deployment keeps its settings in a
/// file or its environment; a flag overrides one for a run. The database's password is never
/// a setting: a setting names the file or the environment variable that holds it.
///
/// A file's unknown key or a value of the wrong kind is an error naming the file and the key,
/// never ignored: a misspelt `"prot"` would otherwise serve on the default port unnoticed.
struct ServeSettings: Equatable {
    var database: String?
    var passwordFile: String?
    var passwordEnv: String?
    var host = "127.0.0.1"
    var port = 8470
    var idleTimeout: Int64 = 60
    var maximumConnections = 1000
    var deviceRequestsPerMinute = 1200
    var addressRequestsPerMinute = 3000
    /// Days a device may go without syncing before it is stale (HubLimits.staleDeviceAge).
    var staleAfterDays: Int64 = 90

    /// `days` as ``HubLimits/staleDeviceAge``'s seconds: 1 to 36,500 days (a century), so
    /// that the seconds always fit.
    static func staleDeviceAge(days: Int64) throws -> TimeInterval {
        guard (1...36_500).contains(days) else {
            throw CommandFailure("a device is stale after 1 to 36,500 days", exitCode: CommandFailure.usage)
        }
        return TimeInterval(days) * 24 * 3600
    }
    var plaintextHTTPOnNetwork = false
    /// Where `GET /metrics` answers in Prometheus's text format; no endpoint without a port.
    var metricsHost = "127.0.0.1"
    var metricsPort: Int?
    var logLevel = Logger.Level.info
    var logFormat = LogFormat.text

    enum LogFormat: String, CaseIterable {
        /// swift-log's own lines: time, level, label, metadata as `key=value`.
        case text
        /// One JSON object a line, for a log collector.
        case json
    }

    /// A setting's value as one source gives it: the environment and flags give text, a
    /// file gives JSON's kinds.
    enum Value {
        case text(String)
        case integer(Int64)
        case boolean(Bool)
    }

    /// Every setting: its key in a file, its environment variable.
    static let keys: [(key: String, environment: String)] = [
        ("database", "SHARK_SERVE_DATABASE"),
        ("passwordFile", "SHARK_SERVE_PASSWORD_FILE"),
        ("passwordEnv", "SHARK_SERVE_PASSWORD_ENV"),
        ("host", "SHARK_SERVE_HOST"),
        ("port", "SHARK_SERVE_PORT"),
        ("idleTimeout", "SHARK_SERVE_IDLE_TIMEOUT"),
        ("maximumConnections", "SHARK_SERVE_MAXIMUM_CONNECTIONS"),
        ("deviceRequestsPerMinute", "SHARK_SERVE_DEVICE_REQUESTS_PER_MINUTE"),
        ("addressRequestsPerMinute", "SHARK_SERVE_ADDRESS_REQUESTS_PER_MINUTE"),
        ("staleAfterDays", "SHARK_SERVE_STALE_AFTER_DAYS"),
        ("plaintextHTTPOnNetwork", "SHARK_SERVE_PLAINTEXT_HTTP_ON_NETWORK"),
        ("metricsHost", "SHARK_SERVE_METRICS_HOST"),
        ("metricsPort", "SHARK_SERVE_METRICS_PORT"),
        ("logLevel", "SHARK_SERVE_LOG_LEVEL"),
        ("logFormat", "SHARK_SERVE_LOG_FORMAT"),
    ]

    /// Sets `key` from `value`, which `origin` gave (a file's path, an environment variable,
    /// a flag), converting text where the setting is a number or a switch.
    mutating func set(_ key: String, _ value: Value, from origin: String) throws {
        func text() throws -> String {
            guard case .text(let text) = value else { throw Self.wrongKind(key, origin, "text") }
            return text
        }
        func integer() throws -> Int64 {
            switch value {
            case .integer(let number): return number
            case .text(let text):
                guard let number = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                    throw Self.wrongKind(key, origin, "an integer")
                }
                return number
            case .boolean: throw Self.wrongKind(key, origin, "an integer")
            }
        }
        func int() throws -> Int {
            guard let number = Int(exactly: try integer()) else { throw Self.wrongKind(key, origin, "an integer") }
            return number
        }
        func boolean() throws -> Bool {
            switch value {
            case .boolean(let flag): return flag
            case .text(let text):
                switch text.lowercased() {
                case "true", "1", "yes": return true
                case "false", "0", "no": return false
                default: throw Self.wrongKind(key, origin, "true or false")
                }
            case .integer: throw Self.wrongKind(key, origin, "true or false")
            }
        }
        switch key {
        case "database": database = try text()
        // One way to the password: a later source's way replaces an earlier one's.
        case "passwordFile": (passwordFile, passwordEnv) = (try text(), nil)
        case "passwordEnv": (passwordEnv, passwordFile) = (try text(), nil)
        case "host": host = try text()
        case "port": port = try int()
        case "idleTimeout": idleTimeout = try integer()
        case "maximumConnections": maximumConnections = try int()
        case "deviceRequestsPerMinute": deviceRequestsPerMinute = try int()
        case "addressRequestsPerMinute": addressRequestsPerMinute = try int()
        case "staleAfterDays": staleAfterDays = try integer()
        case "plaintextHTTPOnNetwork": plaintextHTTPOnNetwork = try boolean()
        case "metricsHost": metricsHost = try text()
        case "metricsPort": metricsPort = try int()
        case "logLevel":
            guard let level = Logger.Level(rawValue: try text().lowercased()) else {
                throw Self.wrongKind(key, origin, Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
            }
            logLevel = level
        case "logFormat":
            guard let format = LogFormat(rawValue: try text().lowercased()) else {
                throw Self.wrongKind(key, origin, LogFormat.allCases.map(\.rawValue).joined(separator: " or "))
            }
            logFormat = format
        default:
            let hint =
                key.lowercased().contains("password") ? " (a password comes from passwordFile or passwordEnv)" : ""
            throw CommandFailure(
                "\(origin): unknown setting \"\(key)\"\(hint); the settings are "
                    + Self.keys.map(\.key).joined(separator: ", "),
                exitCode: CommandFailure.usage)
        }
    }

    /// Applies a JSON file's settings: one object, each key a setting.
    mutating func apply(file path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure("cannot read \(path): \(error.localizedDescription)", exitCode: CommandFailure.noInput)
        }
        let object: [String: FileValue]
        do {
            object = try JSONDecoder().decode([String: FileValue].self, from: data)
        } catch {
            throw CommandFailure(
                "\(path) is not a JSON object of settings (text, integers, true or false)",
                exitCode: CommandFailure.dataError)
        }
        guard object["passwordFile"] == nil || object["passwordEnv"] == nil else {
            throw Self.bothPasswordWays(path)
        }
        // In a stable order, so that the same file always fails on the same key.
        for (key, setting) in object.sorted(by: { $0.key < $1.key }) { try set(key, setting.value, from: path) }
    }

    /// A value of a settings file, of JSON's kinds a setting takes.
    struct FileValue: Decodable {
        let value: Value

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            // Each kind strictly: JSONDecoder reads `1` as no Bool and `true` as no integer.
            if let flag = try? container.decode(Bool.self) {
                value = .boolean(flag)
            } else if let number = try? container.decode(Int64.self) {
                value = .integer(number)
            } else if let number = try? container.decode(Double.self) {
                // A setting that takes a number takes an integer: this one is refused by name.
                value = .text(String(number))
            } else {
                value = .text(try container.decode(String.self))
            }
        }
    }

    /// Applies the `SHARK_SERVE_…` variables that are set. One of that prefix that names no
    /// setting is refused, as a file's unknown key is: a misspelt variable is not ignored.
    mutating func apply(environment: [String: String]) throws {
        let known = Set(Self.keys.map(\.environment) + ["SHARK_SERVE_CONFIG"])
        if let unknown = environment.keys.filter({ $0.hasPrefix("SHARK_SERVE_") && !known.contains($0) }).min() {
            throw CommandFailure(
                "\(unknown) names no setting of shark serve; the variables are "
                    + Self.keys.map(\.environment).joined(separator: ", "),
                exitCode: CommandFailure.usage)
        }
        guard environment["SHARK_SERVE_PASSWORD_FILE"] == nil || environment["SHARK_SERVE_PASSWORD_ENV"] == nil else {
            throw Self.bothPasswordWays("the environment")
        }
        for (key, variable) in Self.keys {
            if let text = environment[variable] { try set(key, .text(text), from: variable) }
        }
    }

    static func bothPasswordWays(_ origin: String) -> CommandFailure {
        CommandFailure(
            "\(origin): give the password one way, a file or an environment variable", exitCode: CommandFailure.usage)
    }

    static func wrongKind(_ key: String, _ origin: String, _ expected: String) -> CommandFailure {
        CommandFailure("\(origin): \(key) is \(expected)", exitCode: CommandFailure.usage)
    }
}
