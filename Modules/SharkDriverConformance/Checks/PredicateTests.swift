import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Typed predicates beyond comparisons, with SQL's treatment of NULL, on every driver.
struct PredicateTests {

    func negations(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = try QueryResultsTests.people(in: store)  // Ada 36, Alan 41, Grace 85, Edsger 72, Barbara 36
        people[0].email = "ada@example.com"
        people[1].email = "alan@test.org"
        try store.commit(people)
        func names(_ predicate: QueryPredicate<Person>) throws -> [String] {
            try Person.query(in: store).where(predicate).orderBy(\.name).fetch().map(\.name)
        }
        #expect(try names(.notLike(\.name, "a%")) == ["Barbara", "Edsger", "Grace"])
        #expect(try names(.notLike(\.email, "%example%")) == ["Alan"])  // the nils match neither
        #expect(try names(.like(\.email, "%example%")) == ["Ada"])
        #expect(try names(.notIn(\.age, [36, 85])) == ["Alan", "Edsger"])
        #expect(try names(.notIn(\.age, [Int]())) == ["Ada", "Alan", "Barbara", "Edsger", "Grace"])
        #expect(try names(.notIn(\.email, ["ada@example.com"])) == ["Alan"])
        #expect(try names(.notIn(\.email, [String?]())) == ["Ada", "Alan", "Barbara", "Edsger", "Grace"])
    }

    func genericKey(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = (1...3).map { Person(name: "p\($0)", payrollNumber: $0) }
        try store.commit(people)
        let note = Note(text: "n")
        try store.commit(note)
        func keyed<M: Model>(_ query: Query<M>, _ key: M.Key) throws -> [M] {
            try query.where(\M.id == key).orderByDescending(\M.id).fetch()
        }
        #expect(try keyed(Person.query(in: store), people[1].id).map(\.name) == ["p2"])
        #expect(try keyed(Note.query(in: store), note.id).map(\.text) == ["n"])
        func descending<M: Model>(_ query: Query<M>) throws -> [M.Key] { try query.orderByDescending(\M.id).ids() }
        #expect(try descending(Person.query(in: store)) == people.map(\.id).reversed())
    }
}
