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
        try conformance.makeStore(tweak)
    }

    /// Whether the driver keeps data in a file that can be reopened.
    var isPersistent: Bool { conformance.isPersistent }

    /// Whether the driver runs raw SQL (the SQL drivers do).
    var hasRawSQL: Bool { conformance.hasRawSQL }

    /// A store on the file at `path` (persistent drivers only).
    func openFile(_ path: String, _ tweak: (StoreConfiguration) -> StoreConfiguration = { $0 }) throws -> Store {
        try conformance.openFile(path, tweak)
    }

    /// A read-only store on the file at `path` (persistent drivers only).
    func openFileReadOnly(_ path: String) throws -> Store {
        try conformance.openFileReadOnly(path)
    }

    /// The persistent drivers.
    static var persistent: [TestDriver] { allCases.filter(\.isPersistent) }
}

extension TestDriver {
    /// The same driver as the conformance library sees it: how its stores open, and what it
    /// can do.
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
        try conformance.makeStore(log: log)
    }
}

extension Reopener {
    convenience init(_ driver: TestDriver) { self.init(driver.conformance) }
}
