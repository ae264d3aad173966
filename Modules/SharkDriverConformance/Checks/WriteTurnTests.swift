import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import Synchronization
import Testing

/// Stores of one database whose writes take turns (`Store.serializeWritesWithOtherStores`,
/// which sync asks for): a write transaction of one begins only once the other's has ended,
/// and sees what it committed. On a database that takes one writer at a time anyway (a
/// SQLite file) it holds already; on a server database the driver makes it hold.
struct WriteTurnTests {
    func writesTakeTurns(driver: ConformanceDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let first = try driver.openFile(file.path) { $0 }
        defer { first.close() }
        let second = try driver.openFile(file.path) { $0 }
        defer { second.close() }
        first.serializeWritesWithOtherStores()
        second.serializeWritesWithOtherStores()
        try first.commit(Person(name: "Before", payrollNumber: 1))
        #expect(try Person.query(in: second).count() == 1)

        // What the second store's transaction counted before it wrote; -1 if it failed.
        let counted = Mutex<Int?>(nil)
        let secondWrites = DispatchSemaphore(value: 0)
        let secondEnded = DispatchSemaphore(value: 0)
        try first.write { tx in
            try tx.commit(Person(name: "First", payrollNumber: 2))
            // The second store writes from another thread meanwhile: it must wait for its turn.
            Thread.detachNewThread {
                secondWrites.signal()
                do {
                    try second.write { tx in
                        let count = try Person.query(in: second).count()
                        counted.withLock { $0 = count }
                        try tx.commit(Person(name: "Second", payrollNumber: 3))
                    }
                } catch {
                    counted.withLock { $0 = -1 }
                }
                secondEnded.signal()
            }
            // The second store's write has begun (or is about to): give it time to get as far
            // as it can, which with turns is waiting for this one.
            secondWrites.wait()
            Thread.sleep(forTimeInterval: 0.3)
            #expect(counted.withLock { $0 } == nil, "the second store's transaction ran during the first's")
        }
        guard secondEnded.wait(timeout: .now() + 60) == .success else {
            Issue.record("the second store's write did not end within a minute of the first's")
            return
        }
        // It began after the first committed, so it counted the first's row.
        #expect(counted.withLock { $0 } == 2)
        #expect(
            try Person.query(in: first).orderBy(\.payrollNumber).fetch().map(\.name) == ["Before", "First", "Second"])
    }
}
