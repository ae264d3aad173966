import Foundation
import SharkDriverConformance
import SharkMemory
import SharkORM
import SharkSQLCipher
import SharkSQLite
import Testing

/// The drivers of this repository, for its tests that run on several at once (sync, the
/// differential tests, the SQL drivers' files). Each driver's own test target runs the
/// conformance suite on its ``conformance`` description, as a driver outside the repository
/// runs it on its own.
public enum TestDriver: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case memory
    case sqlcipher

    /// The key every SQLCipher store of the tests uses.
    public static let cipherKey = SQLCipherKey.passphrase("conformance suite")

    public var testDescription: String { rawValue }

    /// The same driver as the conformance library sees it: how its stores open, and what it
    /// can do.
    public var conformance: ConformanceDriver {
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
        }
    }

    /// A fresh, empty store.
    public func makeStore(_ tweak: (StoreConfiguration) -> StoreConfiguration = { $0 }) throws -> Store {
        try conformance.makeStore(tweak)
    }

    /// Whether the driver keeps data in a file that can be reopened.
    public var isPersistent: Bool { conformance.isPersistent }

    /// A store on the file at `path` (persistent drivers only).
    public func openFile(_ path: String, _ tweak: (StoreConfiguration) -> StoreConfiguration = { $0 }) throws
        -> Store
    {
        try conformance.openFile(path, tweak)
    }

    /// A read-only store on the file at `path` (persistent drivers only).
    public func openFileReadOnly(_ path: String) throws -> Store {
        try conformance.openFileReadOnly(path)
    }

    /// The drivers whose stores live in files.
    public static var persistent: [TestDriver] { allCases.filter(\.isPersistent) }

    /// The drivers over SQLite's file format, plain and encrypted.
    public static var sql: [TestDriver] { [.sqlite, .sqlcipher] }
}
