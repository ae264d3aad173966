import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Lightweight fetches: only the chosen properties read, the rest on first access, on every
/// driver.
struct LightweightFetchTests {

    func loadsOnAccess(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        let people = try QueryResultsTests.people(in: store)
        people[0].email = "ada@example.com"
        try store.commit(people[0])
        log.reset()
        let light = try Person.query(in: store).orderBy(\.name).fetchLightweight(\.name)
        #expect(light.map(\.name) == ["Ada", "Alan", "Barbara", "Edsger", "Grace"])
        #expect(light.allSatisfy { $0.isPartiallyLoaded })
        #expect(log.statements.filter { $0.hasPrefix("SELECT") }.count == 1)
        // Keys are always there; reading a loaded property costs nothing.
        #expect(light[0].id == people[0].id)
        #expect(log.statements.filter { $0.hasPrefix("SELECT") }.count == 1)
        // The first access to a left-out property reads the rest of that object's row.
        #expect(light[0].age == 36)
        #expect(light[0].email == "ada@example.com")
        #expect(!light[0].isPartiallyLoaded && light[1].isPartiallyLoaded)
        #expect(log.statements.filter { $0.hasPrefix("SELECT") }.count == 2)
    }

    func changesWin(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try QueryResultsTests.people(in: store)
        let ada = try #require(try Person.query(in: store).where(\.name == "Ada").fetchLightweight(\.name).first)
        ada.age = 99
        #expect(ada.email == nil)  // loads the rest, keeping the new age
        #expect(ada.age == 99 && ada.payrollNumber == 1)
        try store.commit(ada)
        let other = try #require(try Person.query(in: store).where(\.name == "Alan").fetchLightweight(\.name).first)
        other.name = "Alan T."
        try store.commit(other)  // writes the name only: nothing left out is overwritten
        let back = try #require(try store.find(Person.self, id: other.id))
        #expect(back.name == "Alan T." && back.age == 41 && back.payrollNumber == 2)
        #expect(try store.find(Person.self, id: ada.id)?.age == 99)
    }

    func explicitLoad(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try QueryResultsTests.people(in: store)
        let light = try await Person.query(in: store).orderBy(\.name).fetchLightweight(\.name)
        try await light[1].load()
        #expect(!light[1].isPartiallyLoaded && light[1].age == 41)
        try await Person.query(in: store).where(\.name == "Grace").removeAll()
        #expect(throws: SharkError.notFound(entity: "Person", key: "\(light[4].id)")) { try light[4].load() }
        #expect(light[4].isPartiallyLoaded)
        #expect(light[4].age == 0)  // the initial value: the row is gone
        #expect(throws: SharkError.self) { try Person.query(in: store).fetchLightweight(\.scratch) }
        try store.refresh(light[2])
        #expect(!light[2].isPartiallyLoaded && light[2].age == 36)
    }
}
