import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// The async API from the main actor, under more concurrent operations than the cooperative
/// pool has threads, and transactions that refuse to be used from another task.
struct AsyncTests {
    @MainActor

    func manyConcurrentOperations(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.prepare(Person.self)
        let operations = 96
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<operations {
                group.addTask {
                    switch index % 4 {
                    case 0:
                        try await store.write { tx in
                            try tx.commit(Person(name: "w\(index)", age: index, payrollNumber: index))
                        }
                    case 1:
                        try await store.transaction {
                            try Person(name: "t\(index)", age: index, payrollNumber: index).commit(to: store)
                        }
                    case 2:
                        let people = try await Person.query(in: store).where(\.age >= 0).fetch()
                        #expect(people.allSatisfy { $0.isPersisted })
                    default:
                        let count = try await store.read { snapshot in
                            try snapshot.count(Person.query(in: store))
                        }
                        #expect(count >= 0)
                    }
                }
            }
            try await group.waitForAll()
        }
        // Objects fetched asynchronously belong to the main actor from here on.
        let everyone = try await Person.query(in: store).orderBy(\.payrollNumber).fetch()
        #expect(everyone.count == operations / 2)
        everyone.first?.name = "changed on the main actor"
        try store.commit(try #require(everyone.first))
        #expect(try await Person.query(in: store).where(\.name == "changed on the main actor").count() == 1)
        #expect(try await store.find(Person.self, id: everyone[0].id)?.name == "changed on the main actor")
    }

    func sharkStyleNesting(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        // On the store's writer thread: person.commit() and queries join the transaction.
        let seen = try await store.transaction {
            let ada = Person(name: "Ada", payrollNumber: 1)
            try ada.commit(to: store)
            try store.transaction {
                try Person(name: "Grace", payrollNumber: 2).commit(to: store)
            }
            #expect(store.isInTransaction)
            return try Person.query(in: store).count()
        }
        #expect(seen == 2)
        // A failing savepoint undoes only itself.
        try await store.write { tx in
            try tx.commit(Person(name: "Alan", payrollNumber: 3))
            #expect(throws: SharkError.self) {
                try tx.transaction { inner in
                    try inner.commit(Person(name: "Clash", payrollNumber: 3))
                }
            }
        }
        #expect(try await Person.query(in: store).count() == 3)
    }

    static func isMisuse(_ error: (any Error)?) -> Bool {
        if case SharkError.transactionMisuse? = error as? SharkError { return true }
        return false
    }

    func misuse(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let escaped = ResultBox<WriteTransaction>()
        let fromThread = ResultBox<any Error>()
        let child = ResultBox<Task<Void, any Error>>()
        try await store.write { tx in
            escaped.set(tx)
            try tx.commit(Person(name: "inside", payrollNumber: 1))
            // Another thread, while the body runs.
            _ = Thread.runAndWait {
                do { try tx.commit(Person(name: "from another thread", payrollNumber: 2)) } catch {
                    fromThread.set(error)
                }
                return 0
            }
            // A child task inherits the task-local transaction, and runs elsewhere, later.
            child.set(Task { try store.commit(Person(name: "from a child task", payrollNumber: 3)) })
        }
        #expect(Self.isMisuse(fromThread.get()))
        let childTask = try #require(child.get())
        do {
            try await childTask.value
            Issue.record("a child task that inherited a transaction committed beside it")
        } catch {
            #expect(Self.isMisuse(error), "\(error)")
        }
        // After its body, the transaction refuses every use.
        let tx = try #require(escaped.get())
        #expect(!tx.isActive)
        #expect(performing: { try tx.commit(Person(name: "late", payrollNumber: 4)) }, throws: Self.isMisuse)
        #expect(performing: { _ = try tx.find(Person.self, id: 1) }, throws: Self.isMisuse)
        #expect(try await Person.query(in: store).fetch().map(\.name) == ["inside"])
    }

    func readTransactions(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "first", payrollNumber: 1))
        let (before, after) = try store.read { snapshot in
            let before = try snapshot.count(Person.query(in: store))
            Thread.runAndWait { try? store.commit(Person(name: "meanwhile", payrollNumber: 2)) }
            // Queries not handed the snapshot read it too.
            return (before, try Person.query(in: store).count())
        }
        #expect(before == 1 && after == 1)
        #expect(try Person.query(in: store).count() == 2)
        // Inside a write transaction, a read sees the transaction's own writes.
        try store.write { tx in
            try tx.commit(Person(name: "third", payrollNumber: 3))
            #expect(try store.read { try $0.count(Person.query(in: store)) } == 3)
        }
    }
}

extension Person {
    /// Commits to `store` Shark's way, through the object.
    func commit(to store: Store) throws {
        if self.store == nil { try store.commit(self) } else { try commit() }
    }
}
