import Foundation
@_spi(SharkDriver) import SharkORM
import Synchronization
import Testing

/// `exists`, `ids` and `removeAll` on a query, on every driver.
struct QueryResultsTests {
    static func people(in store: Store) throws -> [Person] {
        let people = [("Ada", 36), ("Alan", 41), ("Grace", 85), ("Edsger", 72), ("Barbara", 36)].enumerated().map {
            Person(name: $0.element.0, age: $0.element.1, payrollNumber: $0.offset + 1)
        }
        try store.commit(people)
        return people
    }

    func exists(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        #expect(try !Person.query(in: store).exists())
        _ = try Self.people(in: store)
        let query = try Person.query(in: store)
        #expect(try query.exists())
        #expect(try query.where(\.age > 80).exists())
        #expect(try !query.where(\.age > 90).exists())
        #expect(try query.offset(4).exists())
        #expect(try !query.offset(5).exists())
        #expect(try !query.limit(0).exists())
        #expect(try !query.where(\.name == "x' OR '1'='1").exists())
    }

    func ids(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = try Self.people(in: store)
        let byName = try Person.query(in: store).orderBy(\.name).ids()
        #expect(byName == people.sorted { $0.name < $1.name }.map(\.id))
        let thirtySix = try Person.query(in: store).where(\.age == 36).ids()
        #expect(Set(thirtySix) == [people[0].id, people[4].id])
        #expect(try Person.query(in: store).where(.isIn(\.id, thirtySix)).count() == 2)
        #expect(try Person.query(in: store).where(\.age > 100).ids().isEmpty)
        #expect(try Person.query(in: store).orderBy(\.id).offset(3).ids() == [people[3].id, people[4].id])

        try store.commit([Setting(id: "b", value: "2"), Setting(id: "a", value: "1")])
        #expect(try Setting.query(in: store).orderBy(\.value).ids() == ["a", "b"])
    }

    func removeAll(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.people(in: store)
        let removed = try Person.query(in: store).where(\.age == 36).removeAll()
        #expect(removed == 2)
        #expect(try Person.query(in: store).orderBy(\.name).fetch().map(\.name) == ["Alan", "Edsger", "Grace"])
        #expect(try Person.query(in: store).where(\.age > 100).removeAll() == 0)
        #expect(try Person.query(in: store).removeAll() == 3)
        #expect(try Person.query(in: store).count() == 0)
    }

    func removeAllVetoed(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        // Titles unique to this run: the record of did hooks is shared by the parallel runs.
        let tag = "\(driver)-\(UUID().uuidString)-"
        try store.commit([Ledger(title: tag + "a"), Ledger(title: tag + "b", locked: true), Ledger(title: tag + "c")])
        #expect(throws: SharkError.vetoed(entity: "Ledger", operation: .delete)) {
            try Ledger.query(in: store).removeAll()
        }
        #expect(try Ledger.query(in: store).count() == 3)
        #expect(Ledger.deleted.withLock { $0 }.filter { $0.hasPrefix(tag) }.isEmpty)
        #expect(try Ledger.query(in: store).where(\.locked == false).removeAll() == 2)
        #expect(Ledger.deleted.withLock { $0 }.filter { $0.hasPrefix(tag) }.sorted() == [tag + "a", tag + "c"])
        #expect(try Ledger.query(in: store).fetch().map(\.title) == [tag + "b"])
    }

    func removeAllRolledBack(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.people(in: store)
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.write { tx in
                #expect(try Person.query(in: store).where(\.age < 50).removeAll() == 3)
                #expect(try tx.count(Person.query(in: store)) == 2)
                throw Abort()
            }
        }
        #expect(try Person.query(in: store).count() == 5)
    }

    func asyncResults(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.people(in: store)
        let query = try Person.query(in: store)
        #expect(try await query.where(\.age > 80).exists())
        #expect(try await query.orderBy(\.age).ids().count == 5)
        #expect(try await query.where(\.age > 70).removeAll() == 2)
        #expect(try await query.count() == 3)
    }
}

/// A model whose stored state vetoes its removal: what `removeAll` fetches carries it.
@Model
final class Ledger {
    var title: String = ""
    var locked: Bool = false

    /// Titles whose `didDelete` ran, across stores and parallel tests.
    static let deleted = Mutex<[String]>([])

    init(title: String, locked: Bool = false) {
        self.title = title
        self.locked = locked
    }

    func willDelete() -> Bool { !locked }
    func didDelete() { Self.deleted.withLock { $0.append(title) } }
}
