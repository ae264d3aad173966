import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@Model
final class AuditEntry {
    var entity: String = ""
    var key: String = ""
    var operation: String = ""
    var columns: String = ""
}

/// Records what it is shown, writes an audit entry per change through the transaction, and
/// can be told to fail.
final class AuditObserver: TransactionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [[Change]] = []
    var failNext = false

    var calls: [[Change]] { lock.withLock { seen } }

    func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
        lock.withLock { seen.append(changes) }
        if lock.withLock({ failNext }) {
            lock.withLock { failNext = false }
            throw SharkError.invalidQuery("the observer refused")
        }
        for change in changes {
            let entry = AuditEntry()
            entry.entity = change.entity
            entry.key = change.key.map { "\($0)" } ?? ""
            entry.operation = change.operation.rawValue
            entry.columns = change.changedColumns.joined(separator: ",")
            try transaction.commit(entry)
        }
    }
}

struct ObserverTests {

    func seesCommittedChanges(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let observer = AuditObserver()
        store.addTransactionObserver(observer)
        let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
        let grace = Person(name: "Grace", age: 45, payrollNumber: 2)
        try store.write { tx in
            try tx.commit(ada)
            try tx.commit(grace)
            ada.age = 37
            try tx.commit(ada)
            // A savepoint that rolls back leaves nothing.
            _ = try? tx.transaction { inner in
                try inner.commit(Person(name: "Ghost", payrollNumber: 3))
                throw SharkError.invalidQuery("undo")
            }
            // A vetoed write never happened.
            let vetoed = Person(name: "Vetoed", payrollNumber: 4)
            vetoed.vetoInsert = true
            #expect(throws: SharkError.self) { try tx.commit(vetoed) }
            try tx.remove(grace)
        }
        #expect(observer.calls.count == 1)
        let changes = try #require(observer.calls.first)
        #expect(changes.map(\.operation) == [.insert, .insert, .update, .delete])
        #expect(changes.allSatisfy { $0.entity == "Person" && $0.origin == .local })
        #expect(changes.map(\.key) == [.integer(ada.id), .integer(2), .integer(ada.id), .integer(2)])
        #expect(changes[2].changedColumns == ["age"])
        #expect(changes[0].changedColumns == Person.schema.columns.map(\.name))
        // The observer's own writes committed with the transaction, and were not shown to it.
        let entries = try AuditEntry.query(in: store).orderBy(\.id).fetch()
        #expect(entries.map(\.operation) == ["insert", "insert", "update", "delete"])
        #expect(entries[2].columns == "age")

        // A commit outside any explicit transaction is observed too.
        ada.age = 38
        try store.commit(ada)
        #expect(observer.calls.count == 2 && observer.calls[1].map(\.operation) == [.update])
        // A transaction that changed nothing is not.
        try store.transaction {}
        #expect(observer.calls.count == 2)
    }

    func failingObserver(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let observer = AuditObserver()
        store.addTransactionObserver(observer)
        try store.commit(Person(name: "Kept", payrollNumber: 1))
        observer.failNext = true
        let lost = Person(name: "Lost", payrollNumber: 2)
        #expect(throws: SharkError.self) {
            try store.transaction { try store.commit(lost) }
        }
        #expect(!lost.isPersisted)
        #expect(try Person.query(in: store).fetch().map(\.name) == ["Kept"])
        #expect(try AuditEntry.query(in: store).count() == 1)
        store.removeTransactionObserver(observer)
        try store.commit(Person(name: "Unobserved", payrollNumber: 3))
        #expect(observer.calls.count == 2)
    }
}
