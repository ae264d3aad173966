import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Decimals compare, sort and aggregate as numbers, exactly, on every driver.
@Suite("Decimal as numbers")
struct DecimalTests {
    static let amounts = [
        "9", "10.5", "-1", "-10", "0", "0.001", "-0.5", "123456789012345678901234567890.123", "0.1", "0.2",
    ]

    static func prices(in store: Store) throws {
        try store.commit(amounts.map { Price($0, $0) })
    }

    func ordering(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try Self.prices(in: store)
        let sorted = try Price.query(in: store).orderBy(\.amount).fetch().map(\.label)
        #expect(
            sorted == [
                "-10", "-1", "-0.5", "0", "0.001", "0.1", "0.2", "9", "10.5", "123456789012345678901234567890.123",
            ])
        let descending = try Price.query(in: store).orderByDescending(\.amount).limit(2).fetch().map(\.label)
        #expect(descending == ["123456789012345678901234567890.123", "10.5"])
        func labels(_ predicate: QueryPredicate<Price>) throws -> [String] {
            try Price.query(in: store).where(predicate).orderBy(\.amount).fetch().map(\.label)
        }
        #expect(try labels(\.amount > Decimal(9)) == ["10.5", "123456789012345678901234567890.123"])
        #expect(try labels(\.amount < Decimal(0)) == ["-10", "-1", "-0.5"])
        #expect(try labels(\.amount == Decimal(string: "10.50")!) == ["10.5"])
        #expect(
            try labels(.between(\.amount, Decimal(-1), Decimal(string: "0.1")!)) == ["-1", "-0.5", "0", "0.001", "0.1"])
        #expect(try labels(.isIn(\.amount, [Decimal(9), Decimal(-10)])) == ["-10", "9"])
        // String predicates compare numbers with decimal columns as numbers too.
        func parsed(_ predicate: String, _ arguments: Any...) throws -> [String] {
            try Price.query(in: store).where(predicate, arguments: arguments).orderBy(\.amount).fetch().map(\.label)
        }
        #expect(try parsed("amount > 9") == ["10.5", "123456789012345678901234567890.123"])
        #expect(try parsed("amount <= -1") == ["-10", "-1"])
        #expect(try parsed("amount BETWEEN -1 AND 0.1") == ["-1", "-0.5", "0", "0.001", "0.1"])
        #expect(try parsed("amount IN (9, -10)") == ["-10", "9"])
        #expect(try parsed("amount = %@", Decimal(string: "10.5")!) == ["10.5"])
        #expect(try parsed("amount > ?", 100) == ["123456789012345678901234567890.123"])
        #expect(try parsed("amount = '0.001'") == ["0.001"])
        // Every value reads back exactly.
        for price in try Price.query(in: store).fetch() {
            #expect(price.amount == Decimal(string: price.label)!, "\(price.label)")
        }
    }

    func aggregates(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit([Price("a", "0.1", discount: "0.3"), Price("b", "0.2"), Price("c", "10.5", discount: "-0.1")])
        let all = try Price.query(in: store)
        #expect(try all.sum(\.amount) == Decimal(string: "10.8")!)
        #expect(try all.where(\.label != "c").sum(\.amount) == Decimal(string: "0.3")!)  // not 0.30000000000000004
        #expect(try all.min(\.amount) == Decimal(string: "0.1")!)
        #expect(try all.max(\.amount) == Decimal(string: "10.5")!)
        #expect(try all.sum(\.discount) == Decimal(string: "0.2")!)
        #expect(try all.average(\.amount) == 3.6)
        #expect(try all.where(\.label == "none").sum(\.amount) == nil)
        #expect(try all.min(\.discount) == Decimal(string: "-0.1")!)
        let big = Decimal(string: "123456789012345678901234567890.123")!
        try store.commit(Price("big", "123456789012345678901234567890.123"))
        #expect(try all.where(\.label == "big").sum(\.amount) == big)
    }

}
