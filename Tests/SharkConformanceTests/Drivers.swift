import Foundation
import SharkMemory
@_spi(SharkDriver) import SharkORM
import SharkSQLCipher
import SharkSQLite
import Synchronization
import Testing

@testable import SharkDriverConformance

/// The drivers the conformance suite runs on. Every test that takes a `TestDriver` runs once
/// per case; a new driver joins the suite by adding a case here.
enum TestDriver: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case memory
    case sqlcipher
    /// The memory engine behind an actor, every call awaited (`SuspendingDriver`): how a
    /// network database's driver plugs in.
    case suspending

    /// The key every SQLCipher store of the suite uses.
    static let cipherKey = SQLCipherKey.passphrase("conformance suite")

    var testDescription: String { rawValue }

    /// A fresh, empty store.
    func makeStore(_ tweak: (StoreConfiguration) -> StoreConfiguration = { $0 }) throws -> Store {
        switch self {
        case .sqlite: return try Store(tweak(.sqliteTemporary))
        case .memory: return try Store(tweak(.memory))
        case .sqlcipher: return try Store(tweak(.sqlcipherTemporary(key: Self.cipherKey)))
        case .suspending: return try Store(tweak(.suspending))
        }
    }

    /// Whether the driver keeps data in a file that can be reopened.
    var isPersistent: Bool { self != .memory && self != .suspending }

    /// Whether the driver runs raw SQL (the SQL drivers do).
    var hasRawSQL: Bool { self == .sqlite || self == .sqlcipher }

    /// A store on the file at `path` (persistent drivers only).
    func openFile(_ path: String, _ tweak: (StoreConfiguration) -> StoreConfiguration = { $0 }) throws -> Store {
        switch self {
        case .sqlite: return try Store(tweak(.sqlite(path: path)))
        case .sqlcipher: return try Store(tweak(.sqlcipher(path: path, key: Self.cipherKey)))
        case .memory, .suspending: preconditionFailure("the \(rawValue) driver has no files")
        }
    }

    /// A read-only store on the file at `path` (persistent drivers only).
    func openFileReadOnly(_ path: String) throws -> Store {
        switch self {
        case .sqlite: return try Store(.sqlite(path: path, readOnly: true))
        case .sqlcipher: return try Store(.sqlcipher(path: path, key: Self.cipherKey, readOnly: true))
        case .memory, .suspending: preconditionFailure("the \(rawValue) driver has no files")
        }
    }

    /// The persistent drivers.
    static var persistent: [TestDriver] { allCases.filter(\.isPersistent) }
}

extension TestDriver {
    /// The same driver as the conformance library sees it.
    var conformance: ConformanceDriver {
        switch self {
        case .sqlite:
            return ConformanceDriver(name: rawValue, hasRawSQL: true, temporary: { .sqliteTemporary }) {
                .sqlite(path: $0, readOnly: $1)
            }
        case .sqlcipher:
            return ConformanceDriver(
                name: rawValue, hasRawSQL: true, temporary: { .sqlcipherTemporary(key: Self.cipherKey) }
            ) { .sqlcipher(path: $0, key: Self.cipherKey, readOnly: $1) }
        case .memory: return ConformanceDriver(name: rawValue) { .memory }
        case .suspending: return ConformanceDriver(name: rawValue) { .suspending }
        }
    }

    /// A fresh store whose statements land in `log`.
    func makeStore(log: StatementLog) throws -> Store {
        try makeStore { $0.traced { log.record($0) } }
    }
}

extension Reopener {
    convenience init(_ driver: TestDriver) { self.init(driver.conformance) }
}
