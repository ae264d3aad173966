import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// `batch(size:)`: every match once, in windows, on every driver.
struct BatchTests {
    static func fill(_ store: Store, count: Int) throws -> [Person] {
        let people = (0..<count).map { Person(name: "p\($0)", age: $0 % 50, payrollNumber: $0) }
        try store.commit(people)
        return people
    }

    func byKey(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = try Self.fill(store, count: 2_500)
        var sizes: [Int] = []
        var keys: [Int64] = []
        try Person.query(in: store).batch(size: 1_000) { batch in
            sizes.append(batch.count)
            keys += batch.map(\.id)
        }
        #expect(sizes == [1_000, 1_000, 500])
        #expect(keys == people.map(\.id))

        var young: [Int64] = []
        try Person.query(in: store).where(\.age < 10).batch(size: 7) { young += $0.map(\.id) }
        #expect(young == people.filter { $0.age < 10 }.map(\.id))
    }

    func byOffset(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = try Self.fill(store, count: 300)
        var names: [String] = []
        try Person.query(in: store).orderByDescending(\.age).batch(size: 64) { names += $0.map(\.name) }
        #expect(names == (try Person.query(in: store).orderByDescending(\.age).fetch().map(\.name)))

        var window: [Int64] = []
        var sizes: [Int] = []
        try Person.query(in: store).offset(10).limit(150).batch(size: 100) { batch in
            sizes.append(batch.count)
            window += batch.map(\.id)
        }
        #expect(sizes == [100, 50])
        #expect(window == Array(people[10..<160]).map(\.id))
    }

    func inOrder(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        // Ties on age, NULL emails (first ascending, last descending), names out of key order.
        let people = (0..<300).map { index in
            Person(name: "n\((index * 37) % 300)", age: index % 7, payrollNumber: index)
        }
        for (index, person) in people.enumerated() where !index.isMultiple(of: 3) {
            person.email = "e\(index % 11)@example.com"
        }
        try store.commit(people)
        let all = try Person.query(in: store)
        // The abs(…) ordering is nested so deep that the windows go on by offset.
        let deep = (0..<21).reduce("age") { text, _ in "abs(\(text))" }
        let queries: [(String, Query<Person>)] = [
            ("ascending, ties", all.orderBy(\.age)),
            ("descending with NULLs last", all.orderByDescending(\.email).orderBy(\.age)),
            ("ascending with NULLs first", all.orderBy(\.email)),
            ("an expression", all.orderBy("lower(name) DESC, age")),
            ("a filter", all.where(\.age > 2).orderByDescending(\.email)),
            ("a window of its own", all.orderBy(\.age).offset(13).limit(101)),
            ("a window without an ordering", all.offset(250).limit(80)),
            ("an ordering too deep for the predicate", all.orderBy("\(deep) DESC")),
        ]
        for (name, query) in queries {
            #expect(query.problem == nil, "\(name)")
            let expected = try query.fetch().map(\.id)
            for size in [1, 17, 64] {
                var seen: [Int64] = []
                var sizes: [Int] = []
                try query.batch(size: size) { batch in
                    sizes.append(batch.count)
                    seen += batch.map(\.id)
                }
                #expect(seen == expected, "\(name), windows of \(size)")
                #expect(sizes.dropLast().allSatisfy { $0 == size }, "\(name), windows of \(size)")
            }
        }
        // A row that moves from the first window to the end is read again there; no other
        // row is skipped or repeated (counting by offset, the move would skip a row).
        var seen: [Int64] = []
        try all.orderBy(\.payrollNumber).batch(size: 50) { batch in
            if seen.isEmpty {
                let first = batch[0]
                first.payrollNumber = 1_000
                try store.commit(first)
            }
            seen += batch.map(\.id)
        }
        #expect(seen.count == 301 && Set(seen).count == 300)
        #expect(seen.last == seen.first)
    }

    /// `Store.batchRows`: for every shape of query, the windows add up to what `fetchRows`
    /// returns at once, and `countRows` counts as many; a bad size or entity throws.
    func rows(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = (0..<250).map { Person(name: "n\(($0 * 37) % 250)", age: $0 % 7, payrollNumber: $0) }
        for (index, person) in people.enumerated() where !index.isMultiple(of: 3) { person.email = "e\(index % 11)" }
        try store.commit(people)
        let age = QueryExpression.column("age")
        let shapes: [(String, QueryExpression?, [Ordering], Int?, Int?)] = [
            ("everything", nil, [], nil, nil),
            ("a filter", .comparison(.greater, age, .value(.integer(2))), [], nil, nil),
            ("descending with NULLs", nil, [Ordering(.column("email"), ascending: false), Ordering(age)], nil, nil),
            ("a window of its own", nil, [Ordering(age)], 101, 13),
            ("a window without an ordering", nil, [], 80, 200),
        ]
        for (name, predicate, ordering, limit, offset) in shapes {
            let expected = try store.fetchRows(
                of: "Person", where: predicate, orderedBy: ordering, limit: limit, offset: offset)
            for size in [1, 33, 1_000] {
                var seen: [StoredRow] = []
                try store.batchRows(
                    of: "Person", where: predicate, orderedBy: ordering, limit: limit, offset: offset, size: size
                ) { rows in
                    #expect(rows.count <= size)
                    seen += rows
                }
                #expect(seen == expected, "\(name), windows of \(size)")
            }
            if limit == nil, offset == nil {
                #expect(try store.countRows(of: "Person", where: predicate) == expected.count, "\(name): the count")
            }
        }
        #expect(throws: SharkError.self) { try store.batchRows(of: "Person", size: 0) { _ in } }
        #expect(throws: SharkError.self) { try store.batchRows(of: "Nobody", size: 10) { _ in } }
    }

    func edges(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.fill(store, count: 30)
        var calls = 0
        try Person.query(in: store).where(\.age > 100).batch(size: 10) { _ in calls += 1 }
        #expect(calls == 0)
        #expect(throws: SharkError.self) { try Person.query(in: store).batch(size: 0) { _ in } }
        #expect(throws: SharkError.self) { try Person.query(in: store).batch(size: -5) { _ in } }
        var all = 0
        try Person.query(in: store).batch(size: .max) { all += $0.count }
        try Person.query(in: store).orderBy(\.age).offset(.max).batch(size: .max) { all += $0.count }
        #expect(all == 30)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try Person.query(in: store).batch(size: 10) { _ in
                calls += 1
                throw Stop()
            }
        }
        #expect(calls == 1)
    }
}
