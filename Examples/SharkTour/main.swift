// The tour: models, queries and transactions on the embedded SQLite default, the same
// models encrypted on SQLCipher and in memory, then sync among three stores on the three
// drivers.
//
//     bash scripts/tour.sh      (the tour, then the shark command line on its databases)
//     swift run shark-tour      (the tour alone)
//
// Every statement the SQLite store runs is printed (arguments redacted), with its duration,
// so you can watch what each call costs.
import Foundation
import SharkMemory
import SharkORM
import SharkSQLCipher
import SharkSQLite
import SharkSync

@Model
final class Department {
    var name: String = ""
    var budget: Decimal = 0
}

@Model
final class Person {
    var name: String = ""
    var age: Int = 0
    var email: String?
    var payrollNumber: Int = 0
    var joined: Date = Date()
    var tags: [String] = []
    var level: Level = .junior
    @Transient var isSelected = false

    enum Level: String, Codable { case junior, senior, principal }

    static let indexes: [Index<Person>] = [.on(\.name), .on(\.age), .unique(\.payrollNumber)]

    init(name: String, age: Int, payrollNumber: Int) {
        self.name = name
        self.age = age
        self.payrollNumber = payrollNumber
    }

    func willDelete() -> Bool { level != .principal }
}

/// A synced model: its key is a UUID the app assigns, the same on every replica.
@Model
final class Postcard {
    var id: UUID
    var city: String = ""
    var message: String = ""

    init(city: String, message: String) {
        self.id = UUID.v7()
        self.city = city
        self.message = message
    }
}

func section(_ title: String) { print("\n== \(title)") }

/// A fresh path in the temporary folder (what was there from an earlier tour removed).
func freshPath(_ name: String) -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    return path
}

let path = freshPath("shark-tour.sqlite")

let store = try Store(.sqlite(path: path).traced { print("   sql: \($0)") })
Store.default = store
print("SharkORM tour on SQLite \(sqliteVersion), database at \(path)")

section("Insert: the table and indexes are created on first use")
let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
try ada.commit()
print("Ada got id \(ada.id)")

section("Update: only the changed column is written")
ada.age = 37
try ada.commit()

section("No change, no statement")
try ada.commit()

section("A transaction: all or nothing")
try store.transaction {
    for (index, name) in ["Grace", "Alan", "Edsger", "Barbara"].enumerated() {
        try store.commit(Person(name: name, age: 30 + index * 5, payrollNumber: 10 + index))
    }
}

section("A failed transaction rolls back rows and objects")
let duplicate = Person(name: "Impostor", age: 99, payrollNumber: 1)
do {
    try store.transaction {
        ada.age = 40
        try store.commit(ada)
        try store.commit(duplicate)  // payrollNumber 1 is taken: unique index
    }
} catch {
    print("   refused: \(error)")
}
print("Ada's age is back to \(ada.age); the impostor is persisted: \(duplicate.isPersisted)")

section("Queries")
let over35 = try Person.query().where(\.age > 35).orderBy(\.name).fetch()
print("over 35:", over35.map(\.name))
let page = try Person.query().orderByDescending(\.age).limit(2).offset(1).fetch()
print("2nd and 3rd oldest:", page.map { "\($0.name) (\($0.age))" })
print("names starting with A:", try Person.query().where(.like(\.name, "a%")).count())
print("no email:", try Person.query().where(\.email == nil).count())

section("A veto")
let boss = Person(name: "Boss", age: 60, payrollNumber: 99)
boss.level = .principal
try boss.commit()
do { try boss.remove() } catch { print("   refused: \(error)") }

section("A live query: a new result after each commit that changes it")
let seniors = try Person.query().where(\.age >= 40).orderBy(\.name).observe()
let watcher = Task {
    for try await result in seniors {
        print("   live (commit \(result.sequence)): \(result.value.map(\.name))")
    }
}
await seniors.caughtUp(through: store.lastCommitSequence)  // the first result is in
let frances = Person(name: "Frances", age: 52, payrollNumber: 7)
try frances.commit()
await seniors.caughtUp(through: store.lastCommitSequence)
frances.age = 53  // the same names, but one of the objects changed: a new result
try frances.commit()
await seniors.caughtUp(through: store.lastCommitSequence)
try Person.query().where(\.age < 0).removeAll()  // changes nothing: no new result
await seniors.caughtUp(through: store.lastCommitSequence)
await seniors.caughtUp(through: store.lastCommitSequence)
watcher.cancel()

section("Remove")
if let alan = try Person.query().where(\.name == "Alan").first() {
    try alan.remove()
}
print("people left:", try Person.query().count())

store.close()

section("Encrypted on disk: the same models on SQLCipher")
let vaultPath = freshPath("shark-tour-vault.sqlite")
let secret = "tour secret"  // in an app: from the keychain, never in code
let vault = try Store(.sqlcipher(path: vaultPath, key: .passphrase(secret)))
try vault.commit([
    Person(name: "Ada", age: 36, payrollNumber: 1), Person(name: "Grace", age: 45, payrollNumber: 2),
])
print("over 40 in the vault:", try Person.query(in: vault).where(\.age > 40).fetch().map(\.name))
let settings = try SQLCipher.settings(of: vault)
print("   \(settings.cipher), \(settings.pageSize)-byte pages, SQLCipher \(settings.cipherVersion)")
try SQLCipher.rekey(vault, to: .passphrase("a new tour secret"))
vault.close()
do {
    _ = try Store(.sqlcipher(path: vaultPath, key: .passphrase(secret)))
} catch {
    print("   the old key no longer opens it: \(error)")
}

section("In memory: the same models and queries, no file")
let scratch = try Store(.memory)
try scratch.commit([
    Person(name: "Edsger", age: 72, payrollNumber: 1), Person(name: "Barbara", age: 36, payrollNumber: 2),
])
print("average age in memory:", try Person.query(in: scratch).average(\.age) ?? 0)
scratch.close()

section("Sync: three stores on three drivers exchange change logs and converge")
let laptop = try SyncEngine(
    store: try Store(.sqlite(path: freshPath("shark-tour-laptop.sqlite"))), lineage: "tour", models: [Postcard.self])
let phone = try SyncEngine(store: try Store(.memory), lineage: "tour", models: [Postcard.self])
let tablet = try SyncEngine(
    store: try Store(.sqlcipher(path: freshPath("shark-tour-tablet.sqlite"), key: .passphrase(secret))),
    lineage: "tour", models: [Postcard.self])
let lisbon = Postcard(city: "Lisbon", message: "Trams!")
try laptop.store.commit([lisbon, Postcard(city: "Porto", message: "Bridges")])
let firstFile = try laptop.exportChanges()
print(
    "laptop (SQLite) exports \(firstFile.count) bytes;", try phone.importChanges(from: firstFile).rowsApplied,
    "rows applied on the phone (memory)")
// Both edit the same postcard before hearing from each other: different columns both stay.
lisbon.city = "Lisboa"
try laptop.store.commit(lisbon)
let onPhone = try phone.store.find(Postcard.self, id: lisbon.id)!
onPhone.message = "Trams and pastéis"
try phone.store.commit(onPhone)
try laptop.importChanges(from: try phone.exportChanges(since: try laptop.versionVector()))
try phone.importChanges(from: try laptop.exportChanges(since: try phone.versionVector()))
// The tablet gets the laptop's changes through untrusted storage: the file is sealed.
let sealing = ChangeLogKey.random()
let sealed = try laptop.exportChanges(since: try tablet.versionVector(), key: sealing)
print(
    "sealed file for the tablet (SQLCipher): \(sealed.count) bytes;",
    try tablet.importChanges(from: sealed, key: sealing).rowsApplied, "rows applied")
for (name, replica) in [("laptop", laptop), ("phone", phone), ("tablet", tablet)] {
    let cards = try Postcard.query(in: replica.store).orderBy(\.city).fetch()
    print("   \(name):", cards.map { "\($0.city): \($0.message)" })
}
laptop.store.close()
phone.store.close()
tablet.store.close()

print("\nDone.")
