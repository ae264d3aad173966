import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Quantities for aggregates over reals and expressions.
@Model
final class Measure {
    var value: Double = 0
    var count: Int = 0
    var note: String?

    init(value: Double, count: Int, note: String? = nil) {
        self.value = value
        self.count = count
        self.note = note
    }
}

/// sum, average, min and max, computed by every engine with SQLite's rules.
struct AggregateTests {

    func empty(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let query = try Person.query(in: store)
        #expect(try query.sum(\.age) == nil)
        #expect(try query.average(\.age) == nil)
        #expect(try query.min(\.name) == nil)
        #expect(try query.max(\.age) == nil)
    }

    func integers(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try QueryResultsTests.people(in: store)  // ages 36, 41, 85, 72, 36 in key order
        let query = try Person.query(in: store)
        #expect(try query.sum(\.age) == 270)
        #expect(try query.average(\.age) == 54)
        #expect(try query.min(\.age) == 36)
        #expect(try query.max(\.age) == 85)
        #expect(try query.min(\.name) == "Ada")
        #expect(try query.max(\.name) == "Grace")
        #expect(try query.where(\.age > 40).sum(\.age) == 198)
        #expect(try query.where(\.age > 100).sum(\.age) == nil)
        #expect(try query.orderBy(\.age).limit(2).sum(\.age) == 72)
        #expect(try query.offset(3).sum(\.age) == 108)  // a window of an unordered query: key order
        #expect(try query.orderByDescending(\.age).limit(1).average(\.age) == 85)
    }

    func realsAndExpressions(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit([
            Measure(value: 0.5, count: 2, note: "b"), Measure(value: 1.5, count: 4),
            Measure(value: 2, count: 1, note: "a"),
        ])
        let query = try Measure.query(in: store)
        #expect(try query.sum(\.value) == 4)
        #expect(try query.average(\.count) == 7.0 / 3)
        #expect(try query.min(\.note) == "a")
        #expect(try query.max(\.note) == "b")
        let product = QueryExpression.arithmetic(.multiply, .column("value"), .column("count"))
        #expect(try query.aggregate(.sum, of: product) == .real(9))
        #expect(try query.aggregate(.maximum, of: product) == .real(6))
        #expect(try query.where(\.count > 10).aggregate(.average, of: product) == .null)

        let readings = [Reading(level: 4, label: "a"), Reading(level: nil, label: "b"), Reading(level: 6, label: "c")]
        try store.commit(readings)
        #expect(try Reading.query(in: store).sum(\.level) == 10)
        #expect(try Reading.query(in: store).average(\.level) == 5)
        #expect(try Reading.query(in: store).min(\.level) == 4)
        #expect(try Reading.query(in: store).where(.isNil(\.level)).sum(\.level) == nil)
    }

    func overflow(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit([Person(name: "a", age: .max, payrollNumber: 1), Person(name: "b", age: 1, payrollNumber: 2)])
        #expect {
            try Person.query(in: store).sum(\.age)
        } throws: { error in
            guard case SharkError.invalidValue(let message) = error else { return false }
            return message.contains("integer overflow")
        }
        #expect(try Person.query(in: store).average(\.age) == Double(Int.max) / 2 + 0.5)
        #expect(try Person.query(in: store).max(\.age) == .max)
    }

    func badInput(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try QueryResultsTests.people(in: store)
        let query = try Person.query(in: store)
        #expect(throws: SharkError.self) { try query.sum(\.scratch) }  // @Transient
        #expect(throws: SharkError.self) { try query.distinct(\.scratch) }
        var deep = QueryExpression.column("age")
        for _ in 0..<1_000 { deep = .arithmetic(.add, deep, .value(.integer(1))) }
        #expect(throws: SharkError.self) { try query.aggregate(.sum, of: deep) }
    }

    func asyncAggregates(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try QueryResultsTests.people(in: store)
        let query = try Person.query(in: store)
        #expect(try await query.sum(\.age) == 270)
        #expect(try await query.average(\.age) == 54)
        #expect(try await query.min(\.age) == 36)
        #expect(try await query.max(\.name) == "Grace")
        #expect(try await query.aggregate(.sum, of: .column("age")) == .integer(270))
    }
}
