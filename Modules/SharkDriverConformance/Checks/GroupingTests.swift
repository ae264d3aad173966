import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// `distinct` and `grouped(by:)` on every driver.
struct GroupingTests {

    func distinct(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = try QueryResultsTests.people(in: store)  // ages 36, 41, 85, 72, 36
        people[1].email = "alan@example.com"
        people[2].email = "grace@example.com"
        people[3].email = "alan@example.com"
        try store.commit(people)
        let query = try Person.query(in: store)
        #expect(try query.distinct(\.age) == [36, 41, 72, 85])
        #expect(try query.distinct(\.email) == [nil, "alan@example.com", "grace@example.com"])
        #expect(try query.where(\.age < 50).distinct(\.age) == [36, 41])
        #expect(try query.orderBy(\.age).limit(3).distinct(\.age) == [36, 41])
        #expect(try query.where(\.age > 100).distinct(\.name).isEmpty)
    }

    func grouped(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try QueryResultsTests.people(in: store)
        let groups = try Person.query(in: store).orderBy(\.name).grouped(by: \.age)
        #expect(
            groups.mapValues { $0.map(\.name) } == [
                36: ["Ada", "Barbara"], 41: ["Alan"], 72: ["Edsger"], 85: ["Grace"],
            ])
        #expect(try Person.query(in: store).where(\.age > 100).grouped(by: \.age).isEmpty)
    }

    func asyncDistinct(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try QueryResultsTests.people(in: store)
        #expect(try await Person.query(in: store).distinct(\.age) == [36, 41, 72, 85])
    }

    func asyncGrouping(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try QueryResultsTests.people(in: store)
        let byAge = try await Person.query(in: store).orderBy(\.name).grouped(by: \.age)
        #expect(byAge[36]?.map(\.name) == ["Ada", "Barbara"])
        let sales = Department("Sales")
        try store.commit([Employee("Ada", department: sales), Employee("Grace")])
        let byDepartment = try await Employee.query(in: store).grouped(by: \.department)
        #expect(byDepartment[sales.id]?.map(\.name) == ["Ada"] && byDepartment[nil]?.map(\.name) == ["Grace"])
    }
}
