import Foundation
import PropertyBased
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
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

    /// Hundreds of objects in one call (where a server driver streams them rather than
    /// binding each value): every value comes back to the bit, text with the bytes a
    /// streaming format escapes included.
    func manyValuesExactly(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let awkward = [
            "", "\t", "a\tb", "line\nbreak", "\r\n", "\\", "\\N", "\\x00", "NULL", "'quoted'", "\"double\"",
            "tab\tand\\backslash\nand newline", "\u{1F988}\t\u{10FFFD}",
        ]
        var rng: any SeededRandomNumberGenerator = Xoshiro(seed: (1, 2, 3, 2_026))
        let rows = (0..<300).map { position in
            var values = SpecimenValues.random(&rng)
            // U+0000 is the one character PostgreSQL text refuses (docs/values.md).
            values.text =
                String(String.UnicodeScalarView(values.text.unicodeScalars.filter { $0 != "\0" }))
                + awkward[position % awkward.count]
            return values
        }
        try store.commit(rows.map(Specimen.init))
        let fetched = try Specimen.query(in: store).orderBy(\.id).fetch().map(SpecimenValues.init(of:))
        #expect(fetched.count == rows.count)
        for (position, (stored, given)) in zip(fetched, rows).enumerated() where stored != given {
            Issue.record("row \(position): \(stored) came back for \(given)")
        }
    }

    /// A unique clash late in a large batch leaves nothing written, as in a small one.
    func clashInALargeBatch(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = (1...200).map { Person(name: "p\($0)", payrollNumber: $0 == 150 ? 10 : $0) }
        #expect {
            try store.commit(people)
        } throws: { error in
            if case SharkError.uniqueConstraint(let entity, _, _) = error { return entity == "Person" }
            return false
        }
        #expect(try Person.query(in: store).count() == 0)
        #expect(people.allSatisfy { !$0.isPersisted && $0.id == 0 })
        people[149].payrollNumber = 150
        try store.commit(people)
        #expect(try Person.query(in: store).count() == 200)
        #expect(Set(people.map(\.id)).count == 200)
    }

    /// Keys given in a large batch (a sync import's, which brings the keys of another
    /// replica's rows) are never handed out again by the engine.
    func givenKeysInALargeBatch(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let schema = try store.prepare(Person.self)
        let rows = (1...100).map { position -> [Value] in
            schema.columns.map { column -> Value in
                switch column.name {
                case "id": .integer(1_000 + Int64(position))
                case "name": .text("given \(position)")
                case "payrollNumber": .integer(Int64(position))
                default: column.isNullable ? .null : column.backfillValue
                }
            }
        }
        try store.write { tx in try tx.insertRows(rows, schema: schema) }
        #expect(try Person.query(in: store).fetch().map(\.id).sorted() == Array(1_001...1_100))
        let later = (1...100).map { Person(name: "later \($0)", payrollNumber: 1_000 + $0) }
        try store.commit(later)
        #expect(later.allSatisfy { $0.id > 1_100 })
        #expect(Set(later.map(\.id)).count == 100)
        #expect(try Person.query(in: store).count() == 200)
    }
}
