import Foundation
import SharkORM

/// A driver under test: how the conformance suite opens its stores, and what the driver can
/// do (the checks that need a capability run only where it is).
///
/// ```swift
/// extension ConformanceDriver {
///     static let memoryEngine = ConformanceDriver(name: "memory") { .memory }
/// }
/// ```
public struct ConformanceDriver: Sendable, CustomStringConvertible {
    /// The driver's name, in every check's description.
    public let name: String
    /// Whether the driver keeps data in a file that reopens.
    public let isPersistent: Bool
    /// Whether the driver runs raw SQL (`Store.rows`, `Store.execute`).
    public let hasRawSQL: Bool
    /// The SQL its raw SQL is written in: the checks that run raw SQL give each dialect its
    /// text.
    public let sqlDialect: SQLDialect
    private let fresh: @Sendable () throws -> StoreConfiguration
    private let file: (@Sendable (_ path: String, _ readOnly: Bool) -> StoreConfiguration)?

    /// A driver whose stores live as long as the store: `configuration` opens a new, empty one.
    public init(
        name: String, hasRawSQL: Bool = false, sqlDialect: SQLDialect = .sqlite,
        configuration: @escaping @Sendable () throws -> StoreConfiguration
    ) {
        self.name = name
        self.isPersistent = false
        self.hasRawSQL = hasRawSQL
        self.sqlDialect = sqlDialect
        self.fresh = configuration
        self.file = nil
    }

    /// A driver whose stores live in files: `temporary` opens a new, empty one; `file` opens
    /// the one at a path again (read-only when asked).
    public init(
        name: String, hasRawSQL: Bool = false, sqlDialect: SQLDialect = .sqlite,
        temporary: @escaping @Sendable () throws -> StoreConfiguration,
        file: @escaping @Sendable (_ path: String, _ readOnly: Bool) -> StoreConfiguration
    ) {
        self.name = name
        self.isPersistent = true
        self.hasRawSQL = hasRawSQL
        self.sqlDialect = sqlDialect
        self.fresh = temporary
        self.file = file
    }

    public var description: String { name }

    /// The dialects of the drivers' raw SQL.
    public enum SQLDialect: Sendable {
        /// SQLite's: `?` parameters, names as declared whatever their case.
        case sqlite
        /// PostgreSQL's: `$1` parameters, mixed-case names quoted (`"Person"`).
        case postgresql
    }

    /// The text of a statement in the driver's dialect.
    ///
    /// ```swift
    /// let driver = ConformanceDriver(name: "memory", sqlDialect: .postgresql) { .memory }
    /// print(driver.sql("UPDATE Person SET age = ?", postgresql: #"UPDATE "Person" SET age = $1"#))
    /// ```
    public func sql(_ sqlite: String, postgresql: String) -> String {
        switch sqlDialect {
        case .sqlite: return sqlite
        case .postgresql: return postgresql
        }
    }

    /// A fresh, empty store.
    public func makeStore(_ tweak: (StoreConfiguration) -> StoreConfiguration = { $0 }) throws -> Store {
        try Store(tweak(try fresh()))
    }

    /// A store on the file at `path` (persistent drivers only).
    public func openFile(_ path: String, _ tweak: (StoreConfiguration) -> StoreConfiguration = { $0 }) throws
        -> Store
    {
        guard let file else {
            preconditionFailure("the \(name) driver has no files: a check asked for one without requiring .persistent")
        }
        return try Store(tweak(file(path, false)))
    }

    /// A read-only store on the file at `path` (persistent drivers only).
    public func openFileReadOnly(_ path: String) throws -> Store {
        guard let file else {
            preconditionFailure("the \(name) driver has no files: a check asked for one without requiring .persistent")
        }
        return try Store(file(path, true))
    }
}
