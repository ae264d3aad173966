import Foundation
import SharkMemory
@_spi(SharkDriver) import SharkORM
import SharkSQLCipher
import SharkSQLite
import Synchronization
import Testing

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

/// Opens "the same database" again and again, as an app does across launches: the same file
/// for persistent drivers, the same store for the memory driver (whose data lives as long as
/// its store). Every statement of every store it opens lands in `log`.
final class Reopener {
    let driver: TestDriver
    let log = StatementLog()
    private let file = TemporaryPath()
    private var memoryStore: Store?

    init(_ driver: TestDriver) { self.driver = driver }

    func open() throws -> Store {
        if driver.isPersistent { return try driver.openFile(file.path) { $0.traced { [log] in log.record($0) } } }
        if let memoryStore { return memoryStore }
        let store = try driver.makeStore(log: log)
        memoryStore = store
        return store
    }

    /// Closes a store opened here (a no-op for the memory store, which must keep its data).
    func close(_ store: Store) {
        if driver.isPersistent { store.close() }
    }

    deinit {
        memoryStore?.close()
        file.cleanUp()
    }
}

/// A unique path in the temporary directory, removed (with WAL files) by `cleanUp`.
struct TemporaryPath {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("shark-test-\(UUID().uuidString).db").path
    }

    func cleanUp() {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// Collects the statements a store runs, through its trace hook.
final class StatementLog: Sendable {
    private let events = Mutex<[TraceEvent]>([])

    var statements: [String] { events.withLock { $0.map(\.statement) } }
    var all: [TraceEvent] { events.withLock { $0 } }

    func record(_ event: TraceEvent) { events.withLock { $0.append(event) } }
    func reset() { events.withLock { $0.removeAll() } }

    /// Statements that change model data (not transaction control or schema bookkeeping).
    var writes: [String] {
        statements.filter {
            ($0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE") || $0.hasPrefix("DELETE")) && !$0.contains("_shark_")
        }
    }
}

extension TestDriver {
    /// A fresh store whose statements land in `log`.
    func makeStore(log: StatementLog) throws -> Store {
        try makeStore { $0.traced { log.record($0) } }
    }
}
