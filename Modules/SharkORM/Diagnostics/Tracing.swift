import Foundation
import Logging

/// One statement a store ran, as reported to tracing closures and loggers.
///
/// ```swift
/// let config = StoreConfiguration.sqlite(path: "app.sqlite").traced { event in
///     print(event.duration, event.statement)   // 0.000012 seconds  SELECT … WHERE "age" >= ?
/// }
/// ```
public struct TraceEvent: Sendable, CustomStringConvertible {
    /// The statement text, with `?` placeholders for bound values.
    public let statement: String
    /// The bound arguments, rendered; each is `?` unless the configuration reveals them.
    public let arguments: [String]
    /// How long the statement took to run.
    public let duration: Duration
    /// Rows returned (reads) or changed (writes).
    public let rows: Int
    /// The driver that ran it.
    public let driver: String
    /// Why the statement failed, or nil when it succeeded.
    public let error: String?

    public init(
        statement: String, arguments: [String], duration: Duration, rows: Int, driver: String, error: String? = nil
    ) {
        self.statement = statement
        self.arguments = arguments
        self.duration = duration
        self.rows = rows
        self.driver = driver
        self.error = error
    }

    public var description: String {
        let args = arguments.isEmpty ? "" : " [" + arguments.joined(separator: ", ") + "]"
        if let error { return "\(statement)\(args) — failed after \(duration.readableText): \(error)" }
        return "\(statement)\(args) — \(rows) row(s) in \(duration.readableText)"
    }
}

/// Where a store reports the statements it runs. Drivers call ``record(statement:arguments:duration:rows:)``
/// only when ``isEnabled``, so tracing costs nothing when nobody listens.
@_spi(SharkDriver) public struct Tracer: Sendable {
    var handlers: [@Sendable (TraceEvent) -> Void] = []
    var logger: Logger?
    var logLevel: Logger.Level = .debug
    /// Whether bound arguments appear in events. Off by default: arguments may be secrets.
    public var revealsArguments = false
    /// The driver name stamped on events.
    public var driverName = ""

    public init() {}

    /// Whether anybody listens.
    public var isEnabled: Bool { !handlers.isEmpty || logger != nil }

    /// Reports a statement, and the error it failed with if it did. `arguments` are rendered
    /// only when revealed.
    public func record(
        statement: String, arguments: [Value], duration: Duration, rows: Int, error: (any Error)? = nil
    ) {
        let rendered = arguments.map { revealsArguments ? $0.description : "?" }
        let event = TraceEvent(
            statement: statement, arguments: rendered, duration: duration, rows: rows, driver: driverName,
            error: error.map { "\($0)" })
        for handler in handlers { handler(event) }
        if let logger {
            logger.log(
                level: logLevel, "\(event.statement)",
                metadata: [
                    "driver": "\(driverName)",
                    "duration": "\(event.duration)",
                    "rows": "\(rows)",
                    "arguments": "\(rendered.joined(separator: ", "))",
                    "error": "\(event.error ?? "")",
                ])
        }
    }
}
