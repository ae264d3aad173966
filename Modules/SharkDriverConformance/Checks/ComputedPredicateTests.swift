import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// A model with numbers to compute with, for arithmetic, functions and column comparisons.
@Model
final class Tally {
    var label: String = ""
    var a: Int = 0
    var b: Int = 0
    var x: Double = 0
    var note: String?
    var bonus: Int?
    var big: Int64 = 0
    var bytes: Data = Data()

    init(_ label: String, a: Int, b: Int, x: Double = 0, note: String? = nil, bonus: Int? = nil) {
        self.label = label
        self.a = a
        self.b = b
        self.x = x
        self.note = note
        self.bonus = bonus
    }
}

/// Arithmetic on columns, comparisons between columns, scalar functions and case-insensitive
/// equality: the same exact answers on every driver.
struct ComputedPredicateTests {
    /// p: 1+2, q: 5+5, r: 12+0, s: -7+3, t: 4+8.
    static func measures(in store: Store) throws {
        try store.commit([
            Tally("p", a: 1, b: 2, x: 0.5, note: "Alpha", bonus: 10),
            Tally("q", a: 5, b: 5, x: 2.5, note: "beta"),
            Tally("r", a: 12, b: 0, x: -1.25, note: "GAMMA", bonus: 0),
            Tally("s", a: -7, b: 3, x: 4, note: nil, bonus: -3),
            Tally("t", a: 4, b: 8, x: 1e300, note: "Zoë", bonus: nil),
        ])
    }

    static func labels(_ store: Store, _ predicate: QueryPredicate<Tally>) throws -> [String] {
        try Tally.query(in: store).where(predicate).orderBy(\.label).fetch().map(\.label)
    }

    func arithmetic(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try Self.measures(in: store)
        #expect(try Self.labels(store, \.a + \.b > 10) == ["r", "t"])
        #expect(try Self.labels(store, \.a + \.b == 10) == ["q"])
        #expect(try Self.labels(store, \.a * 2 - \.b <= 0) == ["p", "s", "t"])
        #expect(try Self.labels(store, 100 - \.a > 100) == ["s"])
        #expect(try Self.labels(store, \.x * 2 > \.x + 1) == ["q", "s", "t"])
        #expect(try Self.labels(store, (\.a + \.b) * 2 >= 24) == ["r", "t"])
        // Division by zero is an error, not a NULL (r has b = 0), for integers and reals.
        #expect(throws: SharkError.self) { try Self.labels(store, \.a / \.b < 100) }
        #expect(throws: SharkError.self) { try Self.labels(store, \.x / 0 < 100) }
        #expect(throws: SharkError.self) { try Tally.query(in: store).where("a % 0 < 100").count() }
        // Integer division truncates toward zero.
        try Tally.query(in: store).where(\.label == "r").removeAll()
        #expect(try Self.labels(store, \.a / \.b == 0) == ["p", "t"])
        #expect(try Self.labels(store, \.a / \.b == -2) == ["s"])
        // A real result that is not a number (∞ − ∞) is NULL, as in SQLite: nothing compares.
        let notANumber = try Tally.query(in: store).where("x * 1e10 - x * 1e10 IS NULL").fetch().map(\.label)
        #expect(notANumber == ["t"])
        #expect(try Self.labels(store, \.x * 1e10 - \.x * 1e10 < 1) == ["p", "q", "s"])
    }

    func columnAgainstColumn(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try Self.measures(in: store)
        #expect(try Self.labels(store, \.a == \.b) == ["q"])
        #expect(try Self.labels(store, \.a != \.b) == ["p", "r", "s", "t"])
        #expect(try Self.labels(store, \.a > \.b) == ["r"])
        #expect(try Self.labels(store, \.a >= \.b) == ["q", "r"])
        #expect(try Self.labels(store, \.a < \.b) == ["p", "s", "t"])
        #expect(try Self.labels(store, \.a <= \.b && \.b > 2) == ["q", "s", "t"])
        #expect(try Self.labels(store, \.b > \.a + 3) == ["s", "t"])
        // A NULL compared with anything matches nothing; coalesce gives every row a value.
        #expect(try Self.labels(store, .length(\.note) > \.a) == ["p"])
        #expect(try Self.labels(store, .length(\.note) <= \.a) == ["q", "r", "t"])  // s has no note
        #expect(try Self.labels(store, .coalesce(\.bonus, 0) <= \.a) == ["q", "r", "t"])
    }

    func functions(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try Self.measures(in: store)
        #expect(try Self.labels(store, .lower(\.note) == "alpha") == ["p"])
        #expect(try Self.labels(store, .upper(\.note) == "BETA") == ["q"])
        // Only ASCII letters change case: "Zoë" upper-cases to "ZOë".
        #expect(try Self.labels(store, .upper(\.note) == "ZOë") == ["t"])
        #expect(try Self.labels(store, .upper(\.label) == "P") == ["p"])
        #expect(try Self.labels(store, .length(\.note) == 3) == ["t"])  // characters, not bytes
        #expect(try Self.labels(store, .length(\.note) == 5) == ["p", "r"])
        #expect(try Self.labels(store, .length(\.bytes) == 0) == ["p", "q", "r", "s", "t"])
        #expect(try Self.labels(store, .abs(\.a) > 6) == ["r", "s"])
        #expect(try Self.labels(store, .abs(\.a - \.b) == 10) == ["s"])
        #expect(try Self.labels(store, .abs(\.x) == 1.25) == ["r"])
        #expect(try Self.labels(store, .coalesce(\.bonus, 0) == 0) == ["q", "r", "t"])
        #expect(try Self.labels(store, .coalesce(\.note, "none") == "none") == ["s"])
        // A function of NULL is NULL: neither == nil nor != nil is decided by anything else.
        #expect(try Self.labels(store, .lower(\.note) == nil) == ["s"])
        #expect(try Self.labels(store, .length(\.note) != 5) == ["q", "t"])
        let lengths = try Tally.query(in: store).orderBy(\.label).fetch().map(\.label)
        #expect(lengths == ["p", "q", "r", "s", "t"])
    }

    func absOverflow(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let extreme = Tally("min", a: 0, b: 0)
        extreme.big = .min
        try store.commit(extreme)
        let query = try Tally.query(in: store).where(.abs(\.big) > 0)
        for run in [{ _ = try query.fetch() }, { _ = try query.count() }, { _ = try query.ids() }] {
            #expect {
                try run()
            } throws: { error in
                guard case SharkError.invalidValue(let message) = error else { return false }
                return message.contains("integer overflow")
            }
        }
        #expect(throws: SharkError.self) { try Tally.query(in: store).sum(.abs(\.big)) }
        // Nothing was changed, and without that row the query runs.
        try store.remove(extreme)
        try store.commit(Tally("one", a: 1, b: 1))
        #expect(try Tally.query(in: store).where(.abs(\.big) == 0).count() == 1)
    }

    func caseInsensitive(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try Self.measures(in: store)
        #expect(try Self.labels(store, .equalsIgnoringCase(\.note, "ALPHA")) == ["p"])
        #expect(try Self.labels(store, .equalsIgnoringCase(\.note, "gamma")) == ["r"])
        #expect(try Self.labels(store, .equalsIgnoringCase(\.note, "ZOË")).isEmpty)  // ë is not ASCII
        #expect(try Self.labels(store, .equalsIgnoringCase(\.note, "zoë")) == ["t"])
        #expect(try Self.labels(store, .equalsIgnoringCase(\.label, "Q")) == ["q"])
        #expect(try Self.labels(store, !.equalsIgnoringCase(\.note, "beta")) == ["p", "r", "t"])  // NULL stays out
    }

    func aggregates(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let empty = try Tally.query(in: store)
        #expect(try empty.sum(\.a * \.b) == nil)
        #expect(try empty.average(\.a + \.b) == nil)
        try Self.measures(in: store)
        let all = try Tally.query(in: store)
        // Expected values spelled out: p 1·2, q 5·5, r 12·0, s -7·3, t 4·8.
        let products = 2 + 25 + 0 - 21 + 32
        let sums = 3 + 10 + 12 - 4 + 12
        let meanDifference = Double(-1 + 0 + 12 - 10 - 4) / 5
        let bonuses = 10 + 100 + 0 - 3 + 100
        #expect(try all.sum(\.a * \.b) == products)
        #expect(try all.sum(\.a + \.b) == sums)
        #expect(try all.average(\.a - \.b) == meanDifference)
        #expect(try all.min(\.a - \.b) == -10)
        #expect(try all.max(.abs(\.a - \.b)) == 12)
        #expect(try all.sum(.coalesce(\.bonus, 100)) == bonuses)
        #expect(try all.where(\.a > \.b).sum(\.a * 10) == 120)
        #expect(try all.orderBy(\.label).limit(2).sum(\.a + 1) == 8)
    }

    func asyncAggregates(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try Self.measures(in: store)
        let all = try Tally.query(in: store)
        #expect(try await all.sum(\.a * \.b) == 38)
        #expect(try await all.average(\.a * 0) == 0)
        #expect(try await all.min(\.a * 2) == -14)
        #expect(try await all.max(\.a * 2) == 24)
    }

    func malformed(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", age: 36))
        func isInvalidQuery(_ error: any Error) -> Bool {
            if case SharkError.invalidQuery = error { return true }
            return false
        }
        let people = try Person.query(in: store)
        #expect(performing: { try people.where(\.scratch + \.age > 1).fetch() }, throws: isInvalidQuery)
        #expect(performing: { try people.where(\.age > \.scratch).count() }, throws: isInvalidQuery)
        #expect(performing: { try people.sum(\.scratch * 2) }, throws: isInvalidQuery)
        #expect(performing: { try people.where(QueryPredicate(.function(.lower, []))).fetch() }, throws: isInvalidQuery)
        #expect(
            performing: {
                try people.where(QueryPredicate(.function(.coalesce, [.column("name")]))).fetch()
            }, throws: isInvalidQuery)
        #expect(
            performing: {
                try store.fetchRows(of: "Person", where: .function(.abs, [.column("age"), .column("age")]))
            }, throws: isInvalidQuery)
        #expect(
            performing: { try people.aggregate(.sum, of: .function(.length, [])) }, throws: isInvalidQuery)
        #expect(try people.where(.lower(\.name) == "ada").count() == 1)
    }
}
