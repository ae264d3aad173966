import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// `commit([…])` writes a batch stage by stage (see WritePipeline+Batch.swift); what it
/// stores, and what a failure leaves, must match committing the objects one by one.
struct BulkCommitTests {

    func duplicates(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ada = Person(name: "Ada", payrollNumber: 1)
        let alan = Person(name: "Alan", payrollNumber: 2)
        try store.commit([ada, ada, alan, ada])
        #expect(try Person.query(in: store).count() == 2)
        #expect(ada.id != 0 && alan.id != 0 && ada.id != alan.id)
        #expect(ada.events == ["willInsert", "didInsert"])
    }

    func mixed(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = (1...6).map { Person(name: "p\($0)", age: $0, payrollNumber: $0) }
        try store.commit(people)
        people[0].age = 100
        people[1].name = "renamed"
        people[2].age = 300
        people[2].email = "c@example.com"
        let newcomer = Person(name: "new", age: 7, payrollNumber: 7)
        try store.commit([people[0], newcomer, people[1], people[2], people[3]])
        let stored = try Person.query(in: store).orderBy(\.id).fetch()
        #expect(stored.map(\.age) == [100, 2, 300, 4, 5, 6, 7])
        #expect(stored.map(\.name) == ["p1", "renamed", "p3", "p4", "p5", "p6", "new"])
        #expect(stored[2].email == "c@example.com")
        #expect((people + [newcomer]).allSatisfy { !$0.hasChanges })
        #expect(people[3].events == ["willInsert", "didInsert"])  // unchanged: not written again
    }

    func failureInTheMiddle(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = (1...5).map { Person(name: "p\($0)", payrollNumber: $0 == 4 ? 2 : $0) }
        #expect(throws: SharkError.self) { try store.commit(people) }
        #expect(try Person.query(in: store).count() == 0)
        #expect(people.allSatisfy { !$0.isPersisted && $0.id == 0 })
        people[3].payrollNumber = 4
        try store.commit(people)
        #expect(try Person.query(in: store).count() == 5)
    }

    func vetoInTheMiddle(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = (1...4).map { Person(name: "p\($0)", payrollNumber: $0) }
        try store.commit(people)
        for person in people { person.age = 50 }
        people[2].vetoUpdate = true
        #expect(throws: SharkError.vetoed(entity: "Person", operation: .update)) { try store.commit(people) }
        #expect(try Person.query(in: store).where(\.age == 50).count() == 0)
        // Every object as it was before the call: changes pending.
        #expect(people.allSatisfy { $0.age == 50 && $0.changedProperties == ["age"] })
    }

    func missingRow(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        // A few rows, and many (a driver may write many updates in another way).
        for count in [3, 40] {
            let people = (1...count).map { Person(name: "p\($0)", payrollNumber: 100 * count + $0) }
            try store.commit(people)
            let gone = people[count / 2].id
            let removed = try store.write { tx in try tx.deleteRow(withKey: .integer(gone), from: "Person") }
            #expect(removed)
            for person in people { person.age = 9 }
            #expect(throws: SharkError.notFound(entity: "Person", key: "\(gone)")) { try store.commit(people) }
            #expect(try Person.query(in: store).where(\.age == 9).count() == 0)
            #expect(people.allSatisfy { $0.age == 9 && $0.changedProperties == ["age"] && $0.isPersisted })
            // A row after the missing one that breaks a unique index: the missing row is what
            // the commit reports, as it is the first row that fails.
            let clashing = people[count - 1]
            clashing.payrollNumber = people[0].payrollNumber
            #expect(throws: SharkError.notFound(entity: "Person", key: "\(gone)")) { try store.commit(people) }
            clashing.payrollNumber = 100 * count + count
        }
    }

    func insideATransaction(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ada = Person(name: "Ada", payrollNumber: 1)
        try store.write { tx throws in
            try tx.commit(ada)
            ada.age = 36
            let alan = Person(name: "Alan", payrollNumber: 2)
            try tx.commit([alan, ada, alan])
            #expect(try tx.count(Person.query(in: store)) == 2)
        }
        #expect(try store.find(Person.self, id: ada.id)?.age == 36)
    }

    func rollbackAfterBatches(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let stored = (1...3).map { Person(name: "s\($0)", age: $0, payrollNumber: $0) }
        try store.commit(stored)
        for person in stored { person.events = [] }
        struct Abort: Error {}
        let fresh = (4...6).map { Person(name: "f\($0)", payrollNumber: $0) }
        #expect(throws: Abort.self) {
            try store.write { tx in
                try tx.commit(fresh)
                for person in stored { person.age += 10 }
                try tx.commit(stored)
                throw Abort()
            }
        }
        #expect(try Person.query(in: store).count() == 3)
        #expect(fresh.allSatisfy { !$0.isPersisted && $0.id == 0 && $0.hasChanges })
        #expect(stored.map(\.age) == [1, 2, 3])  // reloaded from their rows
        #expect((stored + fresh).allSatisfy { !$0.events.contains { $0.hasPrefix("did") } })
        try store.commit(fresh)  // the restored objects insert again
        #expect(try Person.query(in: store).count() == 6)
        #expect(fresh.map(\.events) == Array(repeating: ["willInsert", "willInsert", "didInsert"], count: 3))
    }
}
