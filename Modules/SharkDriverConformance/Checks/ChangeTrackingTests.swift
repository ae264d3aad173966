import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

struct ChangeTrackingTests {

    func onlyChangedColumns(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        let person = Person(name: "Ada", age: 36, payrollNumber: 1)
        try store.commit(person)
        log.reset()

        person.age = 37
        try store.commit(person)
        #expect(log.writes.count == 1)
        let update = try #require(log.writes.first)
        #expect(update.contains("\"age\"") && !update.contains("\"name\"") && !update.contains("\"email\""))

        log.reset()
        person.name = "Ada L."
        person.email = "ada@example.com"
        try store.commit(person)
        let second = try #require(log.writes.first)
        #expect(second.contains("\"name\"") && second.contains("\"email\"") && !second.contains("\"age\""))
    }

    func noChangeNoStatement(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        let person = Person(name: "Ada", payrollNumber: 1)
        try store.commit(person)
        let fetched = try #require(try store.find(Person.self, id: person.id))
        log.reset()
        try store.commit(person)
        try store.commit(fetched)
        person.scratch = 42  // @Transient: not a change
        try store.commit(person)
        #expect(log.statements.isEmpty)
        #expect(!person.hasChanges && person.changedProperties.isEmpty)
    }

    func transientNotStored(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let person = Person(name: "Ada", payrollNumber: 1)
        person.scratch = 7
        try store.commit(person)
        #expect(try store.find(Person.self, id: person.id)?.scratch == 0)
        #expect(!Person.schema.columns.contains { $0.name == "scratch" })
    }

    func manyColumns(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        let wide = VeryWide()
        try store.commit(wide)
        log.reset()
        wide.p3 = -3
        wide.p66 = -66
        wide.p70 = -70
        #expect(wide.changedProperties == ["p3", "p66", "p70"])
        try store.commit(wide)
        let update = try #require(log.writes.first)
        #expect(update.contains("\"p66\"") && update.contains("\"p70\"") && !update.contains("\"p65\""))
        let back = try #require(try store.find(VeryWide.self, id: wide.id))
        #expect(back.p3 == -3 && back.p66 == -66 && back.p70 == -70 && back.p69 == 69)
    }
}
