import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

struct HookTests {

    func vetoes(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        let vetoed = Person(name: "No", payrollNumber: 1)
        vetoed.vetoInsert = true
        #expect(throws: SharkError.vetoed(entity: "Person", operation: .insert)) { try store.commit(vetoed) }
        #expect(!vetoed.isPersisted && log.writes.isEmpty)
        #expect(try Person.query(in: store).count() == 0)

        let person = Person(name: "Yes", payrollNumber: 2)
        try store.commit(person)
        person.vetoUpdate = true
        person.age = 5
        #expect(throws: SharkError.vetoed(entity: "Person", operation: .update)) { try store.commit(person) }
        #expect(try store.find(Person.self, id: person.id)?.age == 0)

        person.vetoDelete = true
        #expect(throws: SharkError.vetoed(entity: "Person", operation: .delete)) { try store.remove(person) }
        #expect(try store.find(Person.self, id: person.id) != nil)
    }

    func vetoInTransaction(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let vetoed = Person(name: "No", payrollNumber: 2)
        vetoed.vetoInsert = true
        #expect(throws: SharkError.self) {
            try store.transaction {
                try store.commit(Person(name: "Yes", payrollNumber: 1))
                try store.commit(vetoed)
            }
        }
        #expect(try Person.query(in: store).count() == 0)
    }

    func didHooksAfterCommit(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let person = Person(name: "Ada", payrollNumber: 1)
        try store.transaction {
            try store.commit(person)
            #expect(person.events == ["willInsert"])
        }
        #expect(person.events == ["willInsert", "didInsert"])

        person.events = []
        person.age = 1
        try store.commit(person)
        #expect(person.events == ["willUpdate", "didUpdate"])

        person.events = []
        person.age = 2
        #expect(throws: Failure.self) {
            try store.transaction {
                try store.commit(person)
                throw Failure()
            }
        }
        #expect(person.events == ["willUpdate"])

        person.events = []
        try store.remove(person)
        #expect(person.events == ["willDelete", "didDelete"])
    }
}
