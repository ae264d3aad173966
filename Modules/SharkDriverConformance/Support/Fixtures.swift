import Foundation
import SharkORM
import Synchronization

/// Opens "the same database" again and again, as an app does across launches: the same file
/// for persistent drivers, the same store for the others (whose data lives as long as its
/// store). Every statement of every store it opens lands in `log`.
final class Reopener {
    let driver: ConformanceDriver
    let log = StatementLog()
    private let file = TemporaryPath()
    private var memoryStore: Store?

    init(_ driver: ConformanceDriver) { self.driver = driver }

    /// `tweak` changes the configuration of a persistent driver's store (the other drivers
    /// keep their one store).
    func open(_ tweak: (StoreConfiguration) -> StoreConfiguration = { $0 }) throws -> Store {
        if driver.isPersistent {
            return try driver.openFile(file.path) { [log] in tweak($0.traced { log.record($0) }) }
        }
        if let memoryStore { return memoryStore }
        let store = try driver.makeStore(log: log)
        memoryStore = store
        return store
    }

    /// Closes a store opened here (a no-op for a store that must keep its data in memory).
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

extension ConformanceDriver {
    /// A fresh store whose statements land in `log`.
    func makeStore(log: StatementLog) throws -> Store {
        try makeStore { $0.traced { log.record($0) } }
    }
}
