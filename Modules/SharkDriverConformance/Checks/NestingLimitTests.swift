@_spi(SharkDriver) import SharkORM
import Testing

/// Every construct of the query language nested as deep as `QueryExpression.maximumNestingDepth`
/// allows runs in every kind of statement a driver writes — a filter, a count over a window, an
/// ordering of a window, an aggregate and distinct values over a window, a subquery — and one
/// level more is refused when the query is built. Each deep expression keeps the value (or
/// truth) of the shallow one it wraps, so the answers are known.
struct NestingLimitTests {
    /// Employees `e0`…`e13` earning 0…13, each mentored by the one before: a chain longer
    /// than the longest path within the limit.
    private static func chain(on driver: ConformanceDriver) throws -> Store {
        let store = try driver.makeStore()
        var mentor: Employee?
        for index in 0..<Self.count {
            let employee = Employee("e\(index)", salary: index)
            employee.mentor = mentor
            try store.commit(employee)
            mentor = employee
        }
        return store
    }

    private static let count = 14

    /// Wrappers of an integer expression that keep its value (salaries are never negative).
    private static let valueConstructs: [(name: String, wrap: @Sendable (String) -> String)] = [
        ("arithmetic's right side", { "(0 + \($0))" }),
        ("arithmetic's left side", { "(\($0) * 1)" }),
        ("a function's only argument", { "abs(\($0))" }),
        ("a function's first argument", { "coalesce(\($0), 0)" }),
        ("a function's later argument", { "coalesce(NULL, \($0))" }),
        ("a mix", { "coalesce(NULL, abs((0 + \($0)) * 1))" }),
    ]

    /// Wrappers of a predicate that keep its truth.
    private static let predicateConstructs: [(name: String, wrap: @Sendable (String) -> String)] = [
        ("NOT", { "NOT (NOT (\($0)))" }),
        ("AND and OR", { "(salary >= 0 AND (\($0) OR salary = 99))" }),
        ("BETWEEN's upper bound", { "(salary BETWEEN 0 AND (0 + salary) AND (\($0)))" }),
        ("IS NULL", { "((\($0)) IS NOT NULL AND (\($0)))" }),
        ("a comparison's right side", { "(1 = (\($0)))" }),
    ]

    /// The deepest text `wrap` makes from `start` that `build` accepts, and whether one wrap
    /// more is refused: `build` gives the query's problem for a text.
    private static func deepest(
        from start: String, _ wrap: (String) -> String, build: (String) -> SharkError?
    ) -> (text: String, wraps: Int, refusedPast: Bool) {
        var text = start
        var wraps = 0
        while build(wrap(text)) == nil, wraps < 100 {
            text = wrap(text)
            wraps += 1
        }
        switch build(wrap(text)) {
        // The parser refuses a text too deep where it gets too deep; a query built from
        // expressions, when it is built.
        case .malformedPredicate?: return (text, wraps, true)
        case .invalidQuery(let detail)?: return (text, wraps, detail.reason == .nestedTooDeep)
        default: return (text, wraps, false)
        }
    }

    func everyConstructAtTheLimit(driver: ConformanceDriver) throws {
        let store = try Self.chain(on: driver)
        defer { store.close() }
        let all = try Employee.query(in: store)
        let window = all.orderBy(\.salary).limit(5).offset(2)

        for (name, wrap) in Self.valueConstructs {
            // A filter comparing the value with itself, and the value as an ordering.
            let filter = Self.deepest(from: "salary", wrap) { all.where("\($0) = salary").problem }
            #expect(filter.wraps > 0 && filter.refusedPast, "\(name): the limit is not where it should be")
            let filtered = all.where("\(filter.text) = salary")
            #expect(try filtered.count() == Self.count, "\(name)")
            #expect(try filtered.limit(4).offset(1).count() == 4, "\(name)")
            #expect(try filtered.orderBy(\.salary).limit(2).offset(7).fetch().map(\.salary) == [7, 8], "\(name)")

            let ordering = Self.deepest(from: "salary", wrap) { all.orderBy("\($0) DESC").problem }
            #expect(ordering.refusedPast, "\(name): the limit is not where it should be")
            let ordered = all.orderBy("\(ordering.text) DESC").limit(3).offset(1)
            #expect(try ordered.fetch().map(\.salary) == [12, 11, 10], "\(name)")
            // The same expression aggregated over a window and listed distinct.
            let expression = try #require(ordered.description.ordering.first?.expression)
            #expect(try window.aggregate(.minimum, of: expression) == .integer(2), "\(name)")
            #expect(try window.aggregate(.sum, of: expression) == .integer(20), "\(name)")
            #expect(try ordered.aggregate(.maximum, of: expression) == .integer(12), "\(name)")
        }

        for (name, wrap) in Self.predicateConstructs {
            let deep = Self.deepest(from: "salary >= 3", wrap) { all.where($0).problem }
            #expect(deep.wraps > 0 && deep.refusedPast, "\(name): the limit is not where it should be")
            let filtered = all.where(deep.text)
            #expect(try filtered.count() == Self.count - 3, "\(name)")
            #expect(try filtered.limit(2).offset(Self.count - 4).count() == 1, "\(name)")
            #expect(try filtered.orderBy(\.salary).limit(2).offset(1).fetch().map(\.salary) == [4, 5], "\(name)")
            #expect(try filtered.orderBy(\.salary).limit(3).distinct(\.salary) == [3, 4, 5], "\(name)")
            #expect(try filtered.orderBy(\.salary).limit(3).sum(\.salary) == 12, "\(name)")
        }

        // Relationship paths: each step is a subquery.
        let path = Self.deepest(from: "salary", { "mentor.\($0)" }) { all.where("\($0) >= 0").problem }
        #expect(path.wraps > 0 && path.refusedPast, "paths: the limit is not where it should be")
        // Only employees with a chain of mentors that long have a value: the last ones.
        #expect(try all.where("\(path.text) >= 0").count() == Self.count - path.wraps, "paths")
        let byPath = all.orderBy("\(path.text) DESC, salary").limit(2)
        #expect(try byPath.fetch().map(\.salary) == [Self.count - 1, Self.count - 2], "paths")

        // Subqueries inside subqueries: employees whose mentor's mentor's … matches.
        var subquery = try Employee.query(in: store).where(\.salary >= 3)
        var levels = 0
        while true {
            let next = try Employee.query(in: store).where(.isIn(\.mentor, subquery))
            guard next.problem == nil else {
                guard case .invalidQuery(let detail)? = next.problem, detail.reason == .nestedTooDeep else {
                    Issue.record("subqueries: refused for another reason: \(String(describing: next.problem))")
                    return
                }
                break
            }
            subquery = next
            levels += 1
            if levels > 100 { break }
        }
        #expect(levels > 0 && levels < 100, "subqueries: the limit is not where it should be")
        #expect(try subquery.count() == Self.count - 3 - levels, "subqueries")
        #expect(try subquery.orderBy(\.salary).limit(1).fetch().map(\.salary) == [3 + levels], "subqueries")
    }
}
