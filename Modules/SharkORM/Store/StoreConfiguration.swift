import Logging

/// Which driver a store opens, and how it reports what it does.
///
/// Drivers add their own factories (`SharkSQLite` adds `.sqlite(path:)` and
/// `.sqliteTemporary`); tracing is chained on:
///
/// ```swift
/// let store = try Store(
///     .sqlite(path: "app.sqlite")
///         .traced { print($0) }
///         .logged(to: Logger(label: "db"))
/// )
/// ```
public struct StoreConfiguration: Sendable {
    /// The driver's short name.
    public let driverName: String
    /// Where statements are reported.
    @_spi(SharkDriver) public var tracer = Tracer()
    /// Whether models older than the database's may migrate it back (see
    /// ``acceptingOlderModels()``).
    var acceptsOlderModels = false
    private let makeDriver: @Sendable (Tracer) throws -> any Driver

    /// A configuration for a custom driver: `makeDriver` opens it with the tracer to report to.
    @_spi(SharkDriver) public init(driverName: String, makeDriver: @escaping @Sendable (Tracer) throws -> any Driver) {
        self.driverName = driverName
        self.makeDriver = makeDriver
        tracer.driverName = driverName
    }

    /// Opens the driver.
    func openDriver() throws -> any Driver { try makeDriver(tracer) }

    /// Also reports every statement to `handler`.
    public func traced(_ handler: @escaping @Sendable (TraceEvent) -> Void) -> StoreConfiguration {
        var copy = self
        copy.tracer.handlers.append(handler)
        return copy
    }

    /// Also logs every statement to `logger` at `level`.
    public func logged(to logger: Logger, level: Logger.Level = .debug) -> StoreConfiguration {
        var copy = self
        copy.tracer.logger = logger
        copy.tracer.logLevel = level
        return copy
    }

    /// Shows bound arguments in traces and logs instead of `?`. Off by default, because
    /// arguments may hold personal data or secrets.
    public func revealingArguments(_ reveal: Bool = true) -> StoreConfiguration {
        var copy = self
        copy.tracer.revealsArguments = reveal
        return copy
    }

    /// Lets this store migrate an entity back to a model the database has been migrated away
    /// from: a deliberate rollback to an older version of the app. Without it, preparing such
    /// a model throws ``SharkError/schemaMismatch(entity:reason:)``, because a newer program
    /// sharing the database may still be running, and going back drops the columns its model
    /// added, with their data.
    ///
    /// ```swift
    /// // Version 1 of the app, reinstalled on purpose over version 2's database.
    /// let store = try Store(.sqlite(path: "app.sqlite").acceptingOlderModels())
    /// ```
    public func acceptingOlderModels(_ accept: Bool = true) -> StoreConfiguration {
        var copy = self
        copy.acceptsOlderModels = accept
        return copy
    }
}
