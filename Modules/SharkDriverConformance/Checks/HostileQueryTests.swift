import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Queries a careless or hostile caller can build: huge limits and offsets, conditions built
/// in loops, lists longer than any parameter limit, nesting deeper than any driver accepts.
/// The outcome must be the same on every driver, and never a trap.
struct HostileQueryTests {
    /// Ten people aged 0…9, named by their age.
    static func tenPeople(on driver: ConformanceDriver) throws -> Store {
        let store = try driver.makeStore()
        try store.commit((0..<10).map { Person(name: "p\($0)", age: $0, payrollNumber: $0) })
        return store
    }

    func hugeLimitsAndOffsets(driver: ConformanceDriver) throws {
        let store = try Self.tenPeople(on: driver)
        defer { store.close() }
        let query = try Person.query(in: store).orderBy(\.age)
        #expect(try query.offset(Int.max).fetch().isEmpty)
        #expect(try query.offset(Int.max).count() == 0)
        #expect(try query.limit(Int.max).fetch().count == 10)
        #expect(try query.limit(Int.max).offset(Int.max).fetch().isEmpty)
        #expect(try query.limit(Int.max).offset(3).fetch().map(\.age) == Array(3..<10))
        #expect(try query.limit(Int.max).offset(Int.max - 1).count() == 0)
        #expect(try query.offset(Int.max).first() == nil)
        // Negative numbers mean none.
        #expect(try query.offset(-5).limit(2).fetch().map(\.age) == [0, 1])
        #expect(try query.limit(-1).fetch().isEmpty)
        // Unordered, so the engine cannot stop early either.
        #expect(try Person.query(in: store).where(\.name != "x").offset(Int.max).limit(Int.max).fetch().isEmpty)
    }

    func firstHonoursLimitZero(driver: ConformanceDriver) throws {
        let store = try Self.tenPeople(on: driver)
        defer { store.close() }
        let none = try Person.query(in: store).limit(0)
        #expect(try none.fetch().isEmpty)
        #expect(try none.count() == 0)
        #expect(try none.first() == nil)
        #expect(try Person.query(in: store).orderBy(\.age).limit(5).first()?.age == 0)
        #expect(try Person.query(in: store).orderBy(\.age).offset(9).limit(5).first()?.age == 9)
        #expect(try Person.query(in: store).orderBy(\.age).offset(10).first() == nil)
    }

    func longConjunction(driver: ConformanceDriver) throws {
        let store = try Self.tenPeople(on: driver)
        defer { store.close() }
        var predicate: QueryPredicate<Person> = \.age >= 0
        for excluded in 0..<10_000 where excluded != 4 { predicate = predicate && \.age != excluded }
        #expect(predicate.problem == nil)
        #expect(try Person.query(in: store).where(predicate).fetch().map(\.age) == [4])
        #expect(try Person.query(in: store).where(predicate).count() == 1)
    }

    func longDisjunction(driver: ConformanceDriver) throws {
        let store = try Self.tenPeople(on: driver)
        defer { store.close() }
        var predicate: QueryPredicate<Person> = \.age == -1
        for wanted in 5..<10_005 { predicate = predicate || \.age == wanted }
        let query = try Person.query(in: store).where(predicate).orderBy(\.age)
        #expect(try query.fetch().map(\.age) == [5, 6, 7, 8, 9])
        #expect(try query.count() == 5)
        // Mixed: a long chain inside another.
        let mixed = (\Person.age < 7) && predicate && (\.name != "p6" || \.age == 6)
        #expect(try Person.query(in: store).where(mixed).orderBy(\.age).fetch().map(\.age) == [5, 6])
    }

    func longInList(driver: ConformanceDriver) throws {
        let store = try Self.tenPeople(on: driver)
        defer { store.close() }
        for count in [999, 1_000, 5_000, 40_000] {
            let ages = [3, 8] + (100..<(100 + count - 2))
            let query = try Person.query(in: store).where(.isIn(\.age, ages)).orderBy(\.age)
            #expect(try query.fetch().map(\.age) == [3, 8], "\(count) values")
            #expect(try query.count() == 2, "\(count) values")
            // Text values past the limit keep their type and bytes.
            let names = (0..<count).map { "n\($0)" } + ["p2", "it's \"quoted\""]
            #expect(try Person.query(in: store).where(.isIn(\.name, names)).fetch().map(\.age) == [2])
        }
        // Many values in a loop of comparisons, past the limit too.
        var predicate: QueryPredicate<Person> = \.name == "p1"
        for index in 0..<3_000 { predicate = predicate || \.name == "x\(index)" }
        #expect(try Person.query(in: store).where(predicate).fetch().map(\.age) == [1])
    }

    func deepNesting(driver: ConformanceDriver) throws {
        let store = try Self.tenPeople(on: driver)
        defer { store.close() }
        // Alternating AND/OR nests for real: each step wraps the previous predicate.
        var deep: QueryPredicate<Person> = \.age == 1
        for step in 0..<10_000 { deep = step.isMultiple(of: 2) ? (deep && \.age >= 0) : (deep || \.age == 99) }
        guard case .invalidQuery(let message)? = deep.problem else {
            Issue.record("a predicate nested 10,000 levels deep was accepted")
            return
        }
        #expect(message.contains("nests"))
        #expect(throws: SharkError.self) { try Person.query(in: store).where(deep).fetch() }
        #expect(throws: SharkError.self) { try Person.query(in: store).where(deep).count() }

        var negated: QueryPredicate<Person> = \.age == 1
        for _ in 0..<10_000 { negated = !negated }
        #expect(negated.problem != nil)

        // At the limit, every shape of nesting still runs, with the same answer everywhere.
        let limit = QueryExpression.maximumNestingDepth
        var nots: QueryPredicate<Person> = \.age == 1
        while nots.depth + 2 <= limit { nots = !(!nots) }
        #expect(nots.problem == nil && nots.depth >= limit - 1)
        #expect(try Person.query(in: store).where(nots).fetch().map(\.age) == [1])
        #expect((!(!(!nots))).problem != nil)

        var alternating: QueryPredicate<Person> = .between(\.age, 1, 2)
        var step = 0
        while alternating.depth < limit {
            alternating = step.isMultiple(of: 2) ? (\.age != 9 && alternating) : (alternating || .like(\.name, "p7"))
            step += 1
        }
        #expect(alternating.problem == nil && alternating.depth == limit)
        let expected = try Person.query(in: store).fetch().filter { [1, 2, 7].contains($0.age) }.count
        #expect(try Person.query(in: store).where(alternating).count() == expected)

        var longList: QueryPredicate<Person> = \.age >= 0
        for excluded in 0..<10_000 where excluded != 4 { longList = longList && \.age != excluded }
        var wrapped = longList
        while wrapped.depth + 3 <= limit { wrapped = !(!wrapped) }
        #expect(wrapped.problem == nil)
        #expect(try Person.query(in: store).where(wrapped || .isIn(\.age, [8, 9])).fetch().map(\.age) == [4, 8, 9])
    }

    func manyWhereCalls(driver: ConformanceDriver) throws {
        let store = try Self.tenPeople(on: driver)
        defer { store.close() }
        var query = try Person.query(in: store)
        for excluded in 0..<2_000 where excluded != 7 { query = query.where(\.age != excluded) }
        #expect(try query.fetch().map(\.age) == [7])
    }
}
