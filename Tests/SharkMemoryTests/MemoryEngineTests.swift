import Foundation
@_spi(SharkDriver) import SharkMemory
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkDriverConformance

/// What only the memory engine has to prove: its planner uses indexes, and its snapshots
/// isolate readers. (Everything else it shares with SQLite in the conformance suite.)
@Suite("Memory engine")
struct MemoryEngineTests {
    private func populatedStore(count: Int = 1000) throws -> (Store, MemoryDriver) {
        let store = try Store(.memory)
        let driver = try #require(store.driver as? MemoryDriver)
        try store.commit((0..<count).map { Person(name: "p\($0)", age: $0 % 100, payrollNumber: $0) })
        return (store, driver)
    }

    private func visits(_ driver: MemoryDriver, _ body: () throws -> Void) rethrows -> Int {
        let before = driver.rowsVisited
        try body()
        return driver.rowsVisited - before
    }

    @Test("equality and ranges on an indexed property visit only the matching rows")
    func indexesAvoidFullScans() throws {
        let (store, driver) = try populatedStore()
        defer { store.close() }
        let query = try Person.query(in: store)
        var result: [Person] = []
        #expect(try visits(driver) { result = try query.where(\.age == 42).fetch() } == 10)
        #expect(result.count == 10)
        #expect(try visits(driver) { result = try query.where(\.age >= 95).fetch() } == 50)
        #expect(try visits(driver) { result = try query.where(.between(\.age, 10, 11)).fetch() } == 20)
        #expect(try visits(driver) { result = try query.where(.isIn(\.age, [1, 2, 3])).fetch() } == 30)
        #expect(try visits(driver) { result = try query.where(\.payrollNumber == 500).fetch() } == 1)
        #expect(try visits(driver) { result = try query.where(\.id == 7).fetch() } == 1)
        #expect(try visits(driver) { result = try query.where(\.id > 990).fetch() } == 10)
        // Extra conditions are checked on the rows the index found.
        #expect(try visits(driver) { result = try query.where(\.age == 42 && \.name == "p142").fetch() } == 10)
        #expect(result.map(\.name) == ["p142"])
        // Without an index, every row is visited.
        #expect(try visits(driver) { result = try query.where(\.email == "x").fetch() } == 1000)
    }

    @Test("a count the key or an index answers reads no row: its lists count between two positions")
    func countsFromPositions() throws {
        let (store, driver) = try populatedStore()
        defer { store.close() }
        let query = try Person.query(in: store)
        var counted = 0
        #expect(try visits(driver) { counted = try query.where(\.age == 42).count() } == 0)
        #expect(counted == 10)
        #expect(try visits(driver) { counted = try query.where(\.age >= 95).count() } == 0)
        #expect(counted == 50)
        #expect(try visits(driver) { counted = try query.where(.isIn(\.age, [1, 2, 3, 2])).limit(25).count() } == 0)
        #expect(counted == 25)
        #expect(try visits(driver) { counted = try query.where(\.id > 990).count() } == 0)
        #expect(counted == 10)
        // A condition the path does not answer alone still tests each row the path finds.
        #expect(try visits(driver) { counted = try query.where(\.age == 42 && \.name == "p142").count() } == 10)
        #expect(counted == 1)
    }

    @Test("an index that delivers the requested order lets a limit stop the scan")
    func orderedIndexScansStopEarly() throws {
        let (store, driver) = try populatedStore()
        defer { store.close() }
        var result: [Person] = []
        let visited = try visits(driver) { result = try Person.query(in: store).orderBy(\.name).limit(5).fetch() }
        #expect(visited == 5)
        #expect(result.map(\.name) == ["p0", "p1", "p10", "p100", "p101"])
        #expect(try visits(driver) { _ = try Person.query(in: store).first() } == 1)
    }

    @Test("key order is the table's own: windows ordered by key, as batch(size:) reads them, stop at their limit")
    func keyOrderStopsEarly() throws {
        let (store, driver) = try populatedStore()
        defer { store.close() }
        var result: [Person] = []
        #expect(try visits(driver) { result = try Person.query(in: store).orderBy(\.id).limit(10).fetch() } == 10)
        #expect(result.map(\.id) == Array(1...10))
        #expect(
            try visits(driver) {
                result = try Person.query(in: store).where(\.id > 500).orderBy(\.id).limit(10).fetch()
            } == 10)
        #expect(result.map(\.id) == Array(501...510))
        // A count reads no row where the path's ends tell it.
        #expect(try visits(driver) { _ = try Person.query(in: store).orderBy(\.id).limit(3).count() } == 0)
        #expect(try Person.query(in: store).orderBy(\.id).limit(3).count() == 3)
        var windows = 0
        let walked = try visits(driver) { try Person.query(in: store).batch(size: 100) { _ in windows += 1 } }
        #expect(windows == 10 && walked <= 1_000 + 10)
    }

    @Test("a reader's snapshot never sees a transaction in progress, nor later commits")
    func snapshotIsolation() throws {
        let (store, driver) = try populatedStore(count: 10)
        defer { store.close() }
        let (first, second) = try driver.read { reader -> (Int, Int) in
            // The first query takes the snapshot, as a deferred SQLite read does.
            let first = try reader.count(EntityQuery(entity: "Person"), schema: Person.schema)
            try store.transaction {
                try store.commit(Person(name: "new", payrollNumber: 99))
            }
            // Committed now, but this reader's snapshot predates it.
            return (first, try reader.count(EntityQuery(entity: "Person"), schema: Person.schema))
        }
        #expect(first == 10 && second == 10)
        #expect(try Person.query(in: store).count() == 11)
    }
}

extension MemoryEngineTests {
    @Test("the memory engine checks its indexes against its rows")
    func memoryIntegrity() throws {
        let store = try Store(.memory)
        defer { store.close() }
        #expect(try store.checkIntegrity().isIntact)
        let people = (0..<500).map { Person(name: "p\($0 % 17)", age: $0 % 50, payrollNumber: $0) }
        try store.commit(people)
        for person in people.prefix(200) {
            person.age += 1
            try store.commit(person)
        }
        for person in people.suffix(100) { try store.remove(person) }
        #expect(throws: SharkError.self) {
            try store.transaction {
                try store.commit(Person(name: "gone", payrollNumber: 10_000))
                throw SharkError.invalidQuery("roll back")
            }
        }
        let report = try store.checkIntegrity()
        #expect(report.isIntact, "\(report.problems)")
    }
}
