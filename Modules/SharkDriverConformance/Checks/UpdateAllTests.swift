import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// `updateAll`: every match changed in the engine, through the write pipeline, on every driver.
struct UpdateAllTests {
    static func ages(_ store: Store) throws -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try Person.query(in: store).fetch().map { ($0.name, $0.age) })
    }

    func values(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = try QueryResultsTests.people(in: store)  // Ada 36, Alan 41, Grace 85, Edsger 72, Barbara 36
        people[0].email = "ada@example.com"
        try store.commit(people[0])
        #expect(try Person.query(in: store).where(\.age == 36).updateAll(.set(\.age, to: 37)) == 2)
        #expect(try Self.ages(store) == ["Ada": 37, "Alan": 41, "Grace": 85, "Edsger": 72, "Barbara": 37])
        // Every expression sees the row as it was: payrollNumber gets the old age.
        let changed = try Person.query(in: store).where(\.name == "Alan").updateAll(
            .set(\.age, to: \.age + 1), .set(\.payrollNumber, to: \.age * 10))
        #expect(changed == 1)
        let alan = try #require(try Person.query(in: store).where(\.name == "Alan").first())
        #expect(alan.age == 42 && alan.payrollNumber == 410)
        #expect(try Person.query(in: store).updateAll(.set(\.email, to: nil)) == 5)
        #expect(try Person.query(in: store).where(.isNotNil(\.email)).count() == 0)
        // A window changes only its own rows, taken in its order.
        #expect(try Person.query(in: store).orderBy(\.name).limit(2).updateAll(.set(\.age, to: 1)) == 2)
        #expect(try Self.ages(store) == ["Ada": 1, "Alan": 1, "Grace": 85, "Edsger": 72, "Barbara": 37])
        #expect(try Person.query(in: store).where(\.age > 1000).updateAll(.set(\.age, to: 0)) == 0)
        // Strings, functions and a property set twice (the last wins).
        try Person.query(in: store).where(\.name == "Grace").updateAll(
            .set(\.name, to: .upper(\.name)), .set(\.age, to: 2), .set(\.age, to: 3))
        #expect(try Person.query(in: store).where(\.name == "GRACE").first()?.age == 3)
    }

    func failures(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try QueryResultsTests.people(in: store)
        // payrollNumber is unique: setting it on two rows fails, and neither changes.
        #expect {
            try Person.query(in: store).where(\.age == 36).updateAll(.set(\.payrollNumber, to: 99))
        } throws: { error in
            if case SharkError.uniqueConstraint = error { return true }
            return false
        }
        #expect(try Person.query(in: store).where(\.payrollNumber == 99).count() == 0)
        #expect(throws: SharkError.invalidKey(entity: "Person", reason: "the key of a stored object cannot change")) {
            try Person.query(in: store).updateAll(.set(\.id, to: 5))
        }
        #expect(throws: SharkError.self) { try Person.query(in: store).updateAll(.set(\.scratch, to: 5)) }
        #expect(throws: SharkError.self) { try Person.query(in: store).where("nope = 1").updateAll(.set(\.age, to: 5)) }
        // Inside a transaction that rolls back, nothing stays.
        #expect(throws: SharkError.self) {
            try store.transaction {
                try Person.query(in: store).updateAll(.set(\.age, to: 0))
                throw SharkError.invalidQuery("stop")
            }
        }
        #expect(try Person.query(in: store).where(\.age == 0).count() == 0)
    }

    func observed(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = try QueryResultsTests.people(in: store)
        let observer = AuditObserver()
        store.addTransactionObserver(observer)
        let count = try await Person.query(in: store).where(\.age == 36).updateAll(.set(\.age, to: \.age + 1))
        #expect(count == 2)
        let changes = observer.calls.flatMap { $0 }
        #expect(changes.count == 2)
        #expect(changes.allSatisfy { $0.operation == .update && $0.changedColumns == ["age"] })
        #expect(Set(changes.compactMap(\.key)) == [people[0].id.columnValue, people[4].id.columnValue])
    }
}
