import Foundation
import Testing

@_spi(SharkDriver) @testable import SharkORM

/// A query run again with other values answers for those values: the SQL drivers reuse the
/// statement of a query of the same shape (the plan cache) and bind the new values, so every
/// value that reaches the text must be found again, in the same order, the next time.
@Suite("Query plans reused across values")
struct QueryPlanTests {
    private func people(_ store: Store) throws {
        try store.commit(
            (0..<30).map { n in
                let person = Person(name: "p\(n)", age: n, payrollNumber: 1000 + n)
                person.email = n % 3 == 0 ? nil : "p\(n)@example.com"
                return person
            })
    }

    func sameShapeOtherValues(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try people(store)
        func ages(_ predicate: QueryPredicate<Person>) throws -> [Int] {
            try Person.query(in: store).where(predicate).orderBy(\.age).fetch().map(\.age)
        }
        for (low, high) in [(3, 5), (10, 12), (28, 40)] {
            let expected = Array(low...min(high, 29))
            #expect(try ages(\.age >= low && \.age <= high) == expected)
            #expect(try ages(.between(\.age, low, high)) == expected)
            #expect(try ages(.isIn(\.age, Array(low...high))) == expected)
            #expect(try ages(.isIn(\.name, (low...high).map { "p\($0)" })) == expected)
            #expect(try ages(\.age + low == high + low) == (high < 30 ? [high] : []))
            #expect(try ages(.like(\.name, "p\(low)%")) == (0..<30).filter { "p\($0)".hasPrefix("p\(low)") })
            #expect(
                try ages(.coalesce(\.email, "none-\(low)") == "none-\(low)" && \.age < high)
                    == (0..<min(high, 30)).filter { $0 % 3 == 0 })
            // Values in the ordering and in the window are bound too.
            let window = try Person.query(in: store).where(\.age >= low).orderBy(\.age).limit(2).offset(1).fetch()
            #expect(window.map(\.age) == Array((low + 1)...(low + 2)).filter { $0 < 30 })
            #expect(try Person.query(in: store).where(\.age < high).count() == min(high, 30))
            #expect(try Person.query(in: store).where(\.age < high).limit(low).count() == min(low, min(high, 30)))
            let sum = try Person.query(in: store).where(\.age <= high).sum(\.age * low)
            #expect(sum == (0...min(high, 29)).reduce(0, +) * low)
            let distinct = try Person.query(in: store).where(\.age >= low && \.age < low + 2).distinct(\.name)
            #expect(distinct == [low, low + 1].filter { $0 < 30 }.map { "p\($0)" }.sorted())
        }
        // An empty list compiles without its operand; a list of another length is another shape.
        #expect(try ages(.isIn(\.age, [])) == [])
        #expect(try ages(.isIn(\.age, [1])) == [1])
        #expect(try ages(.isIn(\.age, [])) == [])
        // Lists longer than any library's parameter limit bind their tail through shark_arg.
        for offset in [0, 7] {
            let many = (0..<2_500).map { $0 * 2 + offset }
            #expect(try ages(.isIn(\.age, many)) == (0..<30).filter { $0 % 2 == offset % 2 && $0 >= offset })
        }
    }

    /// A condition the key or an index answers alone (the memory engine then tests no row
    /// against it) keeps every rule of the condition itself: values convert under the column's
    /// affinity, NULL and values of no matching class find nothing, repeats count once.
    func conditionsAKeyOrIndexAnswers(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try people(store)
        let ids = try Person.query(in: store).orderBy(\.age).fetch().map(\.id)
        func ages(_ expression: QueryExpression) throws -> [Int] {
            try Person.query(in: store).where(QueryPredicate(expression)).orderBy(\.age).fetch().map(\.age)
        }
        func count(_ expression: QueryExpression) throws -> Int {
            try Person.query(in: store).where(QueryPredicate(expression)).count()
        }
        let key = QueryExpression.column("id")
        let (two, three) = (ids[2], ids[3])
        let keys: [Value] = [
            .text(String(two)), .real(Double(three)), .real(Double(three) + 0.5), .null, .integer(two),
            .text("\(three)x"),
        ]
        #expect(try ages(.isIn(key, keys)) == [2, 3])
        #expect(try count(.isIn(key, keys)) == 2)
        #expect(try ages(.comparison(.equal, key, .value(.text(String(three))))) == [3])
        #expect(try ages(.comparison(.equal, .value(.real(Double(two))), key)) == [2])
        #expect(try ages(.comparison(.equal, key, .value(.real(Double(two) + 0.5)))) == [])
        #expect(try ages(.isIn(key, [.null])) == [])

        // `age` has an index of its own; `name` too, with text affinity.
        let age = QueryExpression.column("age")
        // Text with spaces around a number converts too ("7 " is 7).
        let agesListed: [Value] = [.text("4"), .real(5), .real(6.5), .null, .integer(4), .text("7 "), .text("8x")]
        #expect(try ages(.isIn(age, agesListed)) == [4, 5, 7])
        #expect(try count(.isIn(age, agesListed)) == 3)
        #expect(try ages(.comparison(.equal, age, .value(.text("8")))) == [8])
        // Values of two storage classes that compare equal are one value.
        #expect(try ages(.isIn(age, [.integer(5), .real(5), .text("5")])) == [5])
        #expect(try count(.isIn(age, [.real(6), .integer(6)])) == 1)
        #expect(try ages(.isIn(.column("name"), [.text("p9"), .integer(9), .text("p9"), .text("P10")])) == [9])
        #expect(try ages(.comparison(.equal, .column("email"), .value(.text("p11@example.com")))) == [11])
        #expect(try ages(.isIn(.column("email"), [.null, .text("p13@example.com")])) == [13])
    }

    /// A count agrees with the rows a fetch of the same query finds, for every condition the
    /// key or an index answers (the memory engine then counts the entries between two
    /// positions of its lists, reading no row), under windows and orders, after removals.
    func countsAgreeWithFetches(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try people(store)
        let ids = try Person.query(in: store).orderBy(\.age).fetch().map(\.id)
        let people = try Person.query(in: store)
        let (key, age, name) = (
            QueryExpression.column("id"), QueryExpression.column("age"), QueryExpression.column("name")
        )
        func compare(_ op: ComparisonOperator, _ column: QueryExpression, _ value: Value) -> QueryExpression {
            .comparison(op, column, .value(value))
        }
        let conditions: [QueryExpression] = [
            compare(.equal, age, .integer(7)), compare(.equal, age, .text("7")), compare(.equal, age, .real(7.5)),
            compare(.less, age, .integer(10)), compare(.lessOrEqual, age, .integer(10)),
            compare(.greater, age, .integer(25)), compare(.greaterOrEqual, age, .real(25)),
            compare(.greater, age, .integer(99)), compare(.less, age, .integer(-1)),
            .between(age, .value(.integer(5)), .value(.integer(9))),
            .between(age, .value(.integer(9)), .value(.integer(5))),
            .isIn(age, [.integer(3), .real(3), .text("4"), .integer(40), .null, .integer(29)]),
            .isIn(age, []), .isNull(age), .isNull(.column("email")),
            compare(.equal, name, .text("p12")), compare(.greaterOrEqual, name, .text("p2")),
            .isIn(name, [.text("p1"), .text("p1"), .integer(1), .text("nobody")]),
            compare(.equal, .column("payrollNumber"), .integer(1_011)),
            compare(.greater, key, .integer(ids[20])), compare(.lessOrEqual, key, .integer(ids[4])),
            .between(key, .value(.integer(ids[3])), .value(.integer(ids[8]))),
            .isIn(key, [.integer(ids[1]), .text(String(ids[2])), .integer(ids[1]), .integer(-5), .null]),
            .and([compare(.greater, age, .integer(3)), compare(.less, age, .integer(12))]),
        ]
        func check(_ label: String) throws {
            for condition in conditions {
                let all = people.where(QueryPredicate(condition))
                let windows = [
                    all, all.limit(3), all.offset(2), all.limit(4).offset(2), all.orderBy(\.age).limit(2),
                    all.orderByDescending(\.id).limit(5).offset(1), all.orderBy(\.name).offset(1), all.limit(0),
                ]
                for query in windows {
                    #expect(try query.count() == query.fetch().count, "\(label): \(condition)")
                }
            }
            #expect(try people.count() == people.fetch().count)
        }
        try check("30 people")
        // Removals take entries out of the lists; their positions must still count right.
        for person in try people.where(\.age >= 5 && \.age < 15).fetch() { try person.remove() }
        try check("after removals")
        try store.transaction {
            _ = try people.where(\.age > 20).removeAll()
            try store.commit(Person(name: "late", age: 22, payrollNumber: 5_000))
        }
        try check("after a transaction")
    }

    /// UUID keys and the relationships to them are blobs, which the memory engine compares in
    /// a form of its own (two integers for 16 bytes or fewer): every path that reads them, by
    /// key, range, index or order, agrees with SQLite's byte order, blobs shorter and longer
    /// than a UUID among them.
    func blobKeysAndIndexes(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        // Keys that differ only late, only early, or in the padding a short form could add.
        let byteLists: [[UInt8]] = [
            Array(repeating: 0, count: 15) + [1], Array(repeating: 0, count: 14) + [1, 0],
            [1] + Array(repeating: 0, count: 15),
            Array(repeating: 0xFF, count: 16), Array(repeating: 0, count: 16),
            [0x7F] + Array(repeating: 0xFF, count: 15),
            Array(repeating: 0, count: 8) + [0x80] + Array(repeating: 0, count: 7),
        ]
        let teams = byteLists.enumerated().map { position, bytes in
            let team = Team("t\(position)")
            team.id = bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
            return team
        }
        try store.commit(teams)
        try store.commit(teams.enumerated().map { Player("p\($0)", team: $1) })
        let sorted = zip(teams, byteLists).sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
        func names(_ expression: QueryExpression) throws -> [String] {
            try Team.query(in: store).where(QueryPredicate(expression)).orderBy(\.id).fetch().map(\.name)
        }
        #expect(try Team.query(in: store).orderBy(\.id).fetch().map(\.name) == sorted.map(\.name))
        #expect(try Team.query(in: store).orderByDescending(\.id).fetch().map(\.name) == sorted.reversed().map(\.name))
        let key = QueryExpression.column("id")
        for (position, team) in sorted.enumerated() {
            #expect(try store.find(Team.self, id: team.id)?.name == team.name)
            let bound = team.id.columnValue
            #expect(try names(.comparison(.greater, key, .value(bound))) == sorted.dropFirst(position + 1).map(\.name))
            #expect(try names(.comparison(.lessOrEqual, key, .value(bound))) == sorted.prefix(position + 1).map(\.name))
            // The team's player, through the relationship's index.
            let players = try Player.query(in: store).where(
                QueryPredicate(.comparison(.equal, .column("team"), .value(bound))))
            #expect(try players.fetch().map(\.id) == ["p\(teams.firstIndex { $0 === team }!)"])
        }
        // Bounds shorter and longer than a UUID, and a blob no key equals.
        let zeros = Data(repeating: 0, count: 16)
        #expect(try names(.comparison(.greater, key, .value(.blob(zeros + [0])))) == sorted.dropFirst(1).map(\.name))
        #expect(try names(.comparison(.less, key, .value(.blob(Data([0, 0]))))) == [])
        #expect(try names(.isIn(key, [.blob(zeros), .blob(zeros + [0]), .blob(Data([1]))])) == [sorted[0].name])
        let pair = [teams[3].id.columnValue, .blob(Data([1])), teams[0].id.columnValue]
        let inPair = try Player.query(in: store).where(QueryPredicate(.isIn(.column("team"), pair))).orderBy(\.id)
        #expect(try inPair.fetch().map(\.id) == ["p0", "p3"])
    }

    func pathsAndSubqueries(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try TwoDepartments(committedTo: store, others: [Employee("Grace", salary: 120)])
        for (city, expected) in [("Rome", ["Ada"]), ("Oslo", ["Alan"]), ("Lima", [])] {
            let typed = try Employee.query(in: store).where(\.department?.location?.name == city).fetch()
            #expect(typed.map(\.name) == expected)
            let text = try Employee.query(in: store).where("department.location.name = %@", city).fetch()
            #expect(text.map(\.name) == expected)
            let inCity = try Department.query(in: store).where("location.name = %@", city)
            let nested = try Employee.query(in: store).where(.isIn(\.department, inCity)).fetch()
            #expect(nested.map(\.name) == expected)
        }
    }

    func sameTextNewArguments(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore { $0.traced { log.record($0) }.revealingArguments() }
        defer { store.close() }
        try people(store)
        log.reset()
        _ = try Person.query(in: store).where(\.age > 3 && \.name != "x").limit(5).fetch()
        _ = try Person.query(in: store).where(\.age > 20 && \.name != "y").limit(7).fetch()
        let selects = log.all.filter { $0.statement.hasPrefix("SELECT") }
        #expect(selects.count == 2)
        #expect(selects.first?.statement == selects.last?.statement)
        #expect(selects.first?.arguments == ["3", "'x'", "5"])
        #expect(selects.last?.arguments == ["20", "'y'", "7"])
    }

    func schemaChange(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try people(store)
        #expect(try Person.query(in: store).where(\.age < 10).count() == 10)
        // Raw SQL that changes the schema makes the SQL drivers forget their plans.
        if driver.hasRawSQL {
            try store.execute(
                driver.sql(
                    "CREATE INDEX person_email ON Person (email)",
                    postgresql: #"CREATE INDEX person_email ON "Person" (email)"#))
        }
        try store.commit(Person(name: "late", age: 1, payrollNumber: 9))
        #expect(try Person.query(in: store).where(\.age < 10).count() == 11)
        #expect(try Person.query(in: store).where(\.age < 2).count() == 3)
    }
}
