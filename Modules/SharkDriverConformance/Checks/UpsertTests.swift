import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// `upsert`: insert, or overwrite the row that has the object's key, on every driver.
struct UpsertTests {

    func stringKeys(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.upsert(Setting(id: "theme", value: "light"))
        try store.upsert(Setting(id: "theme", value: "dark"))  // another object, the same key
        try store.upsert(Setting(id: "font", value: "serif"))
        #expect(
            try Setting.query(in: store).orderBy(\.id).fetch().map { "\($0.id)=\($0.value)" } == [
                "font=serif", "theme=dark",
            ])
    }

    func uuidKeys(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let original = Note(text: "first")
        try store.upsert(original)
        let replacement = Note(text: "second")
        replacement.id = original.id
        try store.upsert(replacement)
        #expect(try Note.query(in: store).count() == 1)
        #expect(try store.find(Note.self, id: original.id)?.text == "second")
        #expect(replacement.isPersisted && !replacement.hasChanges)
        replacement.text = "third"
        try store.upsert(replacement)  // persisted now: an ordinary commit
        #expect(try store.find(Note.self, id: original.id)?.text == "third")
    }

    func rollback(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.upsert(Setting(id: "theme", value: "light"))
        let incoming = Setting(id: "theme", value: "dark")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.write { tx in
                try tx.upsert(incoming)
                #expect(try tx.find(Setting.self, id: "theme")?.value == "dark")
                throw Abort()
            }
        }
        #expect(try store.find(Setting.self, id: "theme")?.value == "light")
        #expect(!incoming.isPersisted && incoming.value == "dark")
        try store.upsert(incoming)
        #expect(try store.find(Setting.self, id: "theme")?.value == "dark")
    }

    func emptyKey(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        #expect(throws: SharkError.self) { try store.upsert(Setting(id: "", value: "x")) }
        #expect(try Setting.query(in: store).count() == 0)
    }

    func hooks(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
        try store.upsert(ada)  // Int64 key 0: an insert
        let copy = Person(name: "Ada Lovelace", age: 37, payrollNumber: 1)
        copy._sharkAssignKey(ada.id)  // the key of a stored row, as data from elsewhere would carry it
        try store.upsert(copy)
        #expect(ada.events == ["willInsert", "didInsert"])
        #expect(copy.events == ["willUpdate", "didUpdate"])
        #expect(try Person.query(in: store).fetch().map(\.name) == ["Ada Lovelace"])
    }

    func graphOverStoredKey(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.upsert(Player("ada"))
        // The same key again, now holding a new team: an overwrite of the stored row, and an
        // insert of the team, as `commit` does.
        let incoming = Player("ada", team: Team("Analysts"))
        try store.upsert(incoming)
        let back = try #require(try store.find(Player.self, id: "ada"))
        #expect(back.team?.name == "Analysts")
        #expect(try Team.query(in: store).count() == 1)
        // Inside a transaction, and a team whose key is stored too: both overwritten.
        let renamed = Team("Analysts and Engineers")
        renamed.id = try #require(back.team).id
        try store.write { tx in try tx.upsert(Player("ada", team: renamed)) }
        #expect(try Team.query(in: store).fetch().map(\.name) == ["Analysts and Engineers"])
        #expect(try store.find(Player.self, id: "ada")?.team?.name == "Analysts and Engineers")
        // A new player over a new key with a new team: inserted, with the team.
        try store.upsert(Player("grace", team: Team("Navy")))
        #expect(try store.find(Player.self, id: "grace")?.team?.name == "Navy")
        #expect(try Team.query(in: store).count() == 2)
    }
}
