import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@Model
final class Gauge {
    var label: String = ""
    var level: Int8 = 0
    var count: UInt8 = 0
    var total: Int = 0
    var ratio: Float = 0
    var reading: Double = 0
    var maybe: Double?
    var flag: Bool = false

    init(_ label: String, level: Int8 = 0, total: Int = 0, ratio: Float = 0, reading: Double = 0) {
        self.label = label
        self.level = level
        self.total = total
        self.ratio = ratio
        self.reading = reading
    }
}

/// The rules of docs/values.md, each held on every driver: exact arithmetic or a typed error,
/// decimals as numbers, computed values checked against their property's type, NaN and the
/// edges of LIKE.
struct ValueRulesTests {
    static func labels<M: Model>(_ query: Query<M>, _ label: KeyPath<M, String>) throws -> [String] {
        try query.fetch().map { $0[keyPath: label] }.sorted()
    }

    // MARK: Decimals

    func decimalLiterals(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let exact = "12345678901234567890.123"
        try store.commit([Price("big", exact), Price("near", "12345678901234567890.124"), Price("small", "1.5")])
        let prices = try Price.query(in: store)
        #expect(try Self.labels(prices.where("amount = \(exact)"), \.label) == ["big"])
        #expect(try Self.labels(prices.where("amount < 12345678901234567890.124"), \.label) == ["big", "small"])
        #expect(try Self.labels(prices.where("amount BETWEEN 1 AND \(exact)"), \.label) == ["big", "small"])
        #expect(try Self.labels(prices.where("amount IN (1.5, \(exact))"), \.label) == ["big", "small"])
        #expect(try Self.labels(prices.where("amount = ?", Decimal(string: exact)!), \.label) == ["big"])
        // More digits than a Decimal holds: refused where written, never rounded.
        let tooLong = "amount = 1234567890123456789012345678901234567890.5"
        #expect {
            try prices.where(tooLong).count()
        } throws: { error in
            guard case SharkError.malformedPredicate(let syntax) = error else { return false }
            return syntax.offset == 9
        }
    }

    func decimalArithmetic(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit([Price("a", "0.1"), Price("b", "-0.25"), Price("c", "12345678901234567890.5")])
        let prices = try Price.query(in: store)
        #expect(try Self.labels(prices.where((\.amount * 2) > 1), \.label) == ["c"])
        #expect(try Self.labels(prices.where("amount * 2 > 1"), \.label) == ["c"])
        #expect(try Self.labels(prices.where("amount + 0.15 = 0.25"), \.label) == ["a"])
        #expect(try Self.labels(prices.where(.abs(\.amount) == Decimal(string: "0.25")!), \.label) == ["b"])
        #expect(try Self.labels(prices.where("abs(amount) = 0.25"), \.label) == ["b"])
        #expect(try Self.labels(prices.where("amount * -1 > 0"), \.label) == ["b"])
        // Foundation's own results.
        let doubled = try prices.where(\.label == "c").max(\.amount * 2)
        #expect(doubled == Decimal(string: "12345678901234567890.5")! * 2)
        #expect(try prices.sum(\.amount * 2) == Decimal(string: "24691357802469135780.7")!)
        #expect(try prices.min(\.amount * 3) == Decimal(string: "-0.75")!)
        // An integer column against a decimal: compared as numbers.
        #expect(try Self.labels(prices.where("amount > length(label) - 1"), \.label) == ["a", "c"])
        // Text functions, LIKE and % on a decimal are refused where written.
        for text in ["length(amount) = 3", "amount LIKE '1%'", "lower(amount) = 'x'", "amount % 2 = 0"] {
            #expect(throws: SharkError.self, "\(text)") { try prices.where(text).count() }
        }
        // Decimal.nan as an argument is NULL, as nil is: `== .nan` is IS NULL.
        #expect(try prices.where(\.amount == Decimal.nan).count() == 0)
        #expect(try prices.where(\.amount != Decimal.nan).count() == 3)
        #expect(try prices.where("amount > ?", Decimal.nan).count() == 0)
        // updateAll computes in decimals too.
        try prices.where(\.label == "a").updateAll(.set(\.amount, to: \.amount * 3))
        #expect(try store.find(Price.self, id: 1)?.amount == Decimal(string: "0.3")!)
    }

    func decimalSums(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        // Adding these one by one in Decimal rounds differently in different orders.
        let amounts = ["99999999999999999999999999999999999999", "1", "-99999999999999999999999999999999999999", "0.5"]
        try store.commit(amounts.map { Price($0, $0) })
        let prices = try Price.query(in: store)
        #expect(try prices.sum(\.amount) == Decimal(string: "1.5")!)
        #expect(try prices.orderByDescending(\.label).limit(4).sum(\.amount) == Decimal(string: "1.5")!)
        #expect(try prices.average(\.amount) == Decimal(string: "0.375")!)
        let thirds = try driver.makeStore()
        defer { thirds.close() }
        try thirds.commit(["1", "1", "2"].map { Price($0, $0) })
        // 4/3, rounded once to the nearest Decimal (39 digits, as they fit its mantissa).
        #expect(
            try Price.query(in: thirds).average(\.amount) == Decimal(
                string: "1.33333333333333333333333333333333333333")!)
        // Beyond Decimal's range: a typed error.
        let huge = try driver.makeStore()
        defer { huge.close() }
        let largest = [Price("x", "0"), Price("y", "0")]
        for price in largest { price.amount = .greatestFiniteMagnitude }
        try huge.commit(largest)
        #expect(try Price.query(in: huge).max(\.amount) == .greatestFiniteMagnitude)
        #expect(try Price.query(in: huge).average(\.amount) == .greatestFiniteMagnitude)
        #expect(throws: SharkError.self) { try Price.query(in: huge).sum(\.amount) }
        // At the top of the range a result needs all 39 digits of the mantissa: 1.6e165 and
        // 2e165 are 16…0 and 20…0 (39 digits, below 2^128) × 10^127, Decimals like any other.
        let top = try driver.makeStore()
        defer { top.close() }
        let zeros = String(repeating: "0", count: 38)
        try top.commit([Price("e65", "1616062984966802429e47"), Price("e165", "1\(zeros)e127")])
        let edge = try Price.query(in: top)
        let googol = Decimal(string: "1e100")!
        #expect(
            try edge.where(\.label == "e65").max(\.amount * googol)
                == Decimal(string: "161606298496680242900000000000000000000e127")!)
        #expect(try edge.where(\.label == "e165").sum(\.amount * 2) == Decimal(string: "2\(zeros)e127")!)
        #expect(try edge.where("amount * 2 > 1e165").count() == 1)
        #expect(throws: SharkError.self) { try edge.where(\.label == "e65").max(\.amount * googol * 10) }
        #expect(throws: SharkError.self) { try edge.where(\.label == "e165").sum(\.amount * 4) }
    }

    // MARK: Integers and computed values

    func integerOverflow(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit([Gauge("max", total: .max), Gauge("one", total: 1)])
        let gauges = try Gauge.query(in: store)
        #expect(throws: SharkError.self) { try gauges.where(\.total + 1 > 0).count() }
        #expect(throws: SharkError.self) { try gauges.sum(\.total * 2) }
        #expect(throws: SharkError.self) { try gauges.sum(\.total) }
        #expect(throws: SharkError.self) { try gauges.where("total * total > 0").count() }
        #expect(try gauges.where(\.label == "one").sum(\.total * 2) == 2)
        // Division by zero is an error for integers and reals alike.
        #expect(throws: SharkError.self) { try gauges.where(\.total / 0 > 0).count() }
        #expect(throws: SharkError.self) { try gauges.where(\.reading / 0 > 0).count() }
        // updateAll storing Int.max + 1: refused, nothing changed.
        #expect(throws: SharkError.self) { try gauges.updateAll(.set(\.total, to: \.total + 1)) }
        #expect(try gauges.where(\.label == "one").first()?.total == 1)
        #expect(try gauges.where(\.label == "max").first()?.total == .max)
    }

    func computedValuesChecked(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit([Gauge("low", level: 0), Gauge("high", level: 127)])
        let gauges = try Gauge.query(in: store)
        #expect(throws: SharkError.self) { try gauges.updateAll(.set(\.level, to: \.level + 100)) }
        #expect(try gauges.orderBy(\.level).fetch().map(\.level) == [0, 127])  // every row still reads
        #expect(throws: SharkError.self) { try gauges.updateAll(.set(\.level, to: \.level - 100 - 100)) }
        // Inside a transaction: the failed updateAll changes nothing, and the transaction goes on.
        try store.write { tx in
            #expect(throws: SharkError.self) { try gauges.updateAll(.set(\.level, to: \.level * 2)) }
            try tx.commit(Gauge("later", level: 1))
        }
        #expect(try gauges.count() == 3)
        #expect(try gauges.where(\.label == "low").updateAll(.set(\.level, to: \.level + 100)) == 1)
        #expect(try gauges.max(\.level) == 127)
        // An aggregate returned as the property's type: a sum beyond Int8 is an error.
        #expect(throws: SharkError.self) { try gauges.sum(\.level) }
        #expect(throws: SharkError.self) { try gauges.max(\.level + 100) }
        // A Float property gets Float values; beyond Float's range is refused.
        try store.commit(Gauge("ratio", ratio: 1.5))
        try gauges.where(\.label == "ratio").updateAll(.set(\.ratio, to: \.ratio / 3))
        #expect(try gauges.where(\.label == "ratio").first()?.ratio == Float(1.5) / 3)
        #expect(throws: SharkError.self) {
            try gauges.where(\.label == "ratio").updateAll(.set(\.ratio, to: \.ratio * 1e38 * 1e10))
        }
    }

    // MARK: NaN, −0.0, LIKE

    func notANumber(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let gauge = Gauge("nan")
        gauge.maybe = .nan
        #expect(throws: SharkError.self) { try store.commit(gauge) }
        let optionals = OptionalTypes()
        optionals.float = .nan
        #expect(throws: SharkError.self) { try store.commit(optionals) }
        gauge.maybe = nil
        gauge.reading = .nan
        try store.commit(gauge)
        #expect(try store.find(Gauge.self, id: gauge.id)?.reading.isNaN == true)
        // NaN as an argument is NULL, as nil is: `== .nan` is IS NULL, which finds the NaN a
        // non-optional Double holds; any other comparison with it matches nothing.
        try store.commit(Gauge("number", reading: 1))
        #expect(try Gauge.query(in: store).where(\.reading == .nan).fetch().map(\.label) == ["nan"])
        #expect(try Gauge.query(in: store).where(\.reading != .nan).fetch().map(\.label) == ["number"])
        #expect(try Gauge.query(in: store).where(\.reading > .nan).count() == 0)
        #expect(try Gauge.query(in: store).where("reading < ?", Double.nan).count() == 0)
    }

    func negativeZero(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit([Gauge("negative", reading: -0.0), Gauge("positive", reading: 0.0)])
        let gauges = try Gauge.query(in: store)
        #expect(try gauges.where(\.label == "negative").first()?.reading.sign == .minus)
        #expect(try gauges.where(\.reading == 0.0).count() == 2)
        #expect(try gauges.where("length(reading) = 3").count() == 2)
        #expect(try gauges.where("reading * 1 LIKE '0.0'").count() == 2)
    }

    func like(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let long = String(repeating: "ab", count: 30_000)
        try store.commit([Price("a\u{0}b", "1"), Price("a\u{0}c", "2"), Price(long, "3"), Price("ÅÉ", "4")])
        let prices = try Price.query(in: store)
        #expect(try prices.where(.like(\.label, "a\u{0}b")).count() == 1)
        #expect(try prices.where(.like(\.label, "a\u{0}%")).count() == 2)
        #expect(try prices.where(.like(\.label, "a_b")).count() == 1)
        #expect(try prices.where(.like(\.label, long)).count() == 1)  // a 60 KB pattern
        #expect(try prices.where(.like(\.label, "%" + String(repeating: "b", count: 50_001))).count() == 0)
        #expect(try prices.where(.like(\.label, "__")).fetch().map(\.label) == ["ÅÉ"])  // characters, not bytes
        #expect(try prices.where(.like(\.label, "åé")).count() == 0)  // only ASCII folds case
    }
}
