import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

struct CRUDTests {

    func insertAndFind(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
        #expect(!ada.isPersisted && ada.id == 0)
        try store.commit(ada)
        #expect(ada.isPersisted && ada.id > 0 && !ada.hasChanges)
        let grace = Person(name: "Grace", age: 45, payrollNumber: 2)
        try store.commit(grace)
        #expect(grace.id > ada.id)

        let found = try #require(try store.find(Person.self, id: ada.id))
        #expect(found !== ada && found.name == "Ada" && found.age == 36 && found.isPersisted)
        #expect(try store.find(Person.self, id: 999_999) == nil)

        ada.age = 99
        try store.refresh(ada)
        #expect(ada.age == 36 && !ada.hasChanges)
    }

    /// A lookup by key outside any transaction is a driver's own path
    /// (`Driver.readRow(withKey:schema:_:)`): it must see each commit at once, and nothing of
    /// a removed row or an open transaction's writes.
    func lookupByKeyOutsideTransactions(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
        try store.commit(ada)
        for age in 37...40 {
            ada.age = age
            try store.commit(ada)
            #expect(try store.find(Person.self, id: ada.id)?.age == age)
        }
        let grace = Person(name: "Grace", age: 45, payrollNumber: 2)
        try store.write { tx in
            try tx.commit(grace)
            try tx.remove(ada)
            #expect(try tx.find(Person.self, id: grace.id)?.name == "Grace")
        }
        #expect(try store.find(Person.self, id: ada.id) == nil)
        #expect(try store.find(Person.self, id: grace.id)?.age == 45)
        #expect(try store.find(Person.self, id: -1) == nil)
        store.close()
        #expect(throws: SharkError.closed) { try store.find(Person.self, id: grace.id) }
    }

    func updateAndRemove(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let person = Person(name: "Ada", age: 36, payrollNumber: 1)
        try store.commit(person)
        person.age = 37
        person.email = "ada@example.com"
        #expect(person.changedProperties == ["age", "email"])
        try store.commit(person)
        let back = try #require(try store.find(Person.self, id: person.id))
        #expect(back.age == 37 && back.email == "ada@example.com")

        try store.remove(person)
        #expect(!person.isPersisted)
        #expect(try store.find(Person.self, id: person.id) == nil)
        #expect(throws: SharkError.notPersisted(entity: "Person")) { try store.remove(person) }
        #expect(throws: SharkError.notFound(entity: "Person", key: "\(person.id)")) { try store.refresh(person) }

        // A removed object can be committed again: it is inserted anew with its key.
        try store.commit(person)
        #expect(try store.find(Person.self, id: person.id)?.age == 37)
    }

    func appAssignedKeys(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let notes = (0..<5).map { Note(text: "note \($0)") }
        try store.commit(notes)
        // v7 UUIDs are time-ordered, so key order is creation order.
        let fetched = try Note.query(in: store).fetch()
        #expect(fetched.map(\.text) == notes.map(\.text))
        #expect(try store.find(Note.self, id: notes[2].id)?.text == "note 2")

        try store.commit(Setting(id: "theme", value: "dark"))
        #expect(try store.find(Setting.self, id: "theme")?.value == "dark")
        #expect(Setting.schema.name == "settings")
        #expect(throws: SharkError.invalidKey(entity: "settings", reason: "a String key must not be empty")) {
            try store.commit(Setting(id: "", value: "x"))
        }
        // Inserting a second object under an existing key violates the primary key.
        #expect {
            try store.commit(Setting(id: "theme", value: "light"))
        } throws: { error in
            if case SharkError.uniqueConstraint(let entity, _, _) = error { return entity == "settings" }
            return false
        }
    }

    func queries(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = [("Ada", 36), ("Grace", 45), ("Alan", 41), ("Edsger", 72), ("Barbara", 41), ("ada", 20)]
        try store.commit(people.enumerated().map { Person(name: $1.0, age: $1.1, payrollNumber: $0) })
        let query = try Person.query(in: store)

        #expect(
            try query.where(\.age > 40).orderBy(\.name).fetch().map(\.name) == ["Alan", "Barbara", "Edsger", "Grace"])
        #expect(try query.where(\.age >= 41 && \.age <= 45).count() == 3)
        #expect(try query.where(\.age == 41 || \.name == "Ada").count() == 3)
        #expect(try query.where(!(\.age < 70)).fetch().map(\.name) == ["Edsger"])
        #expect(try query.where(\.name != "Ada").count() == 5)
        // Ties in ordering come back in key order.
        #expect(try query.orderBy(\.age).fetch().map(\.name) == ["ada", "Ada", "Alan", "Barbara", "Grace", "Edsger"])
        #expect(
            try query.orderByDescending(\.age).orderBy(\.name).fetch().map(\.name)
                == ["Edsger", "Grace", "Alan", "Barbara", "Ada", "ada"])
        #expect(try query.orderBy(\.age).limit(2).offset(1).fetch().map(\.name) == ["Ada", "Alan"])
        #expect(try query.orderBy(\.age).offset(4).fetch().map(\.name) == ["Grace", "Edsger"])
        #expect(try query.limit(3).offset(5).count() == 1)
        #expect(try query.limit(0).fetch().isEmpty)
        #expect(try query.offset(100).fetch().isEmpty)
        #expect(try query.where(\.name == "Nobody").first() == nil)
        #expect(try query.orderByDescending(\.age).first()?.name == "Edsger")
        // LIKE is case-insensitive for ASCII; IN, BETWEEN and nil tests.
        #expect(try query.where(.like(\.name, "a%")).orderBy(\.name).fetch().map(\.name) == ["Ada", "Alan", "ada"])
        #expect(try query.where(.isIn(\.age, [41, 72])).count() == 3)
        #expect(try query.where(.isIn(\.age, [Int]())).count() == 0)
        #expect(try query.where(.between(\.age, 36, 41)).count() == 3)
        #expect(try query.where(\.email == nil).count() == 6)
        #expect(try query.where(.isNotNil(\.email)).count() == 0)
    }

    func nullComparisons(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let withEmail = Person(name: "A", payrollNumber: 1)
        withEmail.email = "a@x"
        try store.commit([withEmail, Person(name: "B", payrollNumber: 2)])
        let query = try Person.query(in: store)
        // A comparison with a NULL column is never true, not even !=.
        #expect(try query.where(\.email != "a@x").count() == 0)
        #expect(try query.where(\.email == "a@x").count() == 1)
        #expect(try query.where(\.email != nil).count() == 1)
        // NULLs sort first ascending, last descending.
        #expect(try query.orderBy(\.email).fetch().map(\.name) == ["B", "A"])
        #expect(try query.orderByDescending(\.email).fetch().map(\.name) == ["A", "B"])
    }

    func typedValuesInPredicates(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        for (color, size) in [(Color.red, Size.small), (.blue, .large), (.blue, .medium)] {
            let object = AllTypes()
            object.color = color
            object.size = size
            try store.commit(object)
        }
        let query = try AllTypes.query(in: store)
        #expect(try query.where(\.color == .blue).count() == 2)
        #expect(try query.where(\.size >= .medium).count() == 2)
        #expect(try query.where(\.color == .blue && \.size == .large).count() == 1)
    }

    func defaultStore(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Seed", payrollNumber: 1))
        let fetched = try #require(try Person.query(in: store).first())
        fetched.age = 50
        try fetched.commit()  // the object's own store
        #expect(try store.find(Person.self, id: fetched.id)?.age == 50)
        try fetched.refresh()
        try fetched.remove()
        #expect(try Person.query(in: store).count() == 0)
    }

    func defaultUUIDKeys(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let tags = (0..<20).map { index -> Tagged in
            let tag = Tagged()
            tag.label = "t\(index)"
            return tag
        }
        #expect(Set(tags.map(\.id)).count == 20)
        // Version 7, and in creation order.
        #expect(
            tags.allSatisfy {
                $0.id.uuidString[$0.id.uuidString.index($0.id.uuidString.startIndex, offsetBy: 14)] == "7"
            })
        #expect(tags.map(\.id.uuidString) == tags.map(\.id.uuidString).sorted())
        try store.commit(tags)
        #expect(try Tagged.query(in: store).fetch().map(\.label) == tags.map(\.label))
    }
}
