import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// A Codable value whose JSON cannot be produced.
struct Unencodable: Codable, Equatable, Sendable {
    var value: Int
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "never encodes"))
    }
}

@Model
final class Priced {
    var price: Decimal = 0
    var when: Date = Date(timeIntervalSinceReferenceDate: 0)
    var maybePrice: Decimal?
    var maybeWhen: Date?
    var extra: Unencodable?
}

/// Anything a commit accepts must read back; what cannot is refused at commit with a typed
/// error, and nothing is written.
struct UnreadableValueTests {
    static let unreadable: [(String, @Sendable (Priced) -> Void)] = [
        ("Decimal.nan", { $0.price = .nan }),
        ("optional Decimal.nan", { $0.maybePrice = .nan }),
        ("a NaN date", { $0.when = Date(timeIntervalSinceReferenceDate: .nan) }),
        ("an optional NaN date", { $0.maybeWhen = Date(timeIntervalSinceReferenceDate: .nan) }),
        ("a Codable value that does not encode", { $0.extra = Unencodable(value: 1) }),
    ]

    func refused(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        for (label, spoil) in Self.unreadable {
            let fresh = Priced()
            spoil(fresh)
            #expect(throws: SharkError.self, "insert of \(label)") { try store.commit(fresh) }
            #expect(!fresh.isPersisted)

            let stored = Priced()
            stored.price = 10
            try store.commit(stored)
            spoil(stored)
            #expect {
                try store.commit(stored)
            } throws: { error in
                guard case SharkError.invalidValue = error else { return false }
                return true
            }
            // The row kept its last good values, and every row still reads.
            let back = try #require(try store.find(Priced.self, id: stored.id), "\(label)")
            #expect(back.price == 10 && back.maybePrice == nil && back.extra == nil, "\(label)")
            try store.remove(stored)
        }
        #expect(try Priced.query(in: store).fetch().isEmpty)
    }

    func extremes(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        for decimal in [
            Decimal.greatestFiniteMagnitude, Decimal.leastFiniteMagnitude, Decimal.leastNonzeroMagnitude,
            Decimal(string: "-0.000000000000000000000000000000000001")!, Decimal(-1),
        ] {
            for date in [Date.distantPast, Date.distantFuture, Date(timeIntervalSinceReferenceDate: .infinity)] {
                let object = Priced()
                object.price = decimal
                object.maybePrice = decimal
                object.when = date
                object.maybeWhen = date
                try store.commit(object)
                let back = try #require(try store.find(Priced.self, id: object.id))
                #expect(back.price == decimal && back.maybePrice == decimal, "\(decimal)")
                #expect(back.when == date && back.maybeWhen == date, "\(date)")
            }
        }
    }
}

struct RawSQLMisuseTests {

    func argumentCounts(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", age: 36, payrollNumber: 1))
        func expectRefused(_ run: () throws -> Void) {
            #expect {
                try run()
            } throws: { error in
                guard case SharkError.invalidQuery(let message) = error else { return false }
                return message.contains("parameter")
            }
        }
        let person = driver.sql("Person", postgresql: #""Person""#)
        let (first, second) = driver.sqlDialect == .sqlite ? ("?", "?") : ("$1", "$2")
        expectRefused { _ = try store.rows("SELECT * FROM \(person) WHERE name = \(first) AND age = \(second)", "Ada") }
        expectRefused { _ = try store.rows("SELECT * FROM \(person) WHERE name = \(first)") }
        expectRefused { _ = try store.rows("SELECT * FROM \(person)", "extra") }
        expectRefused { try store.execute("UPDATE \(person) SET name = \(first) WHERE age = \(second)", "Grace") }
        #expect(try Person.query(in: store).where(\.name == "Ada").count() == 1)
        #expect(
            try store.rows(
                driver.sql(
                    "SELECT name FROM Person WHERE age = ?1 OR payrollNumber = ?1",
                    postgresql: #"SELECT name FROM "Person" WHERE age = $1 OR "payrollNumber" = $1"#), 36
            ).rows.count == 1)
    }

    func multipleStatements(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", age: 36, payrollNumber: 1))
        #expect {
            try store.execute(
                driver.sql(
                    "INSERT INTO Person (name, age, payrollNumber) VALUES ('Eve', 1, 9); DROP TABLE Person",
                    postgresql:
                        #"INSERT INTO "Person" (name, age, "payrollNumber") VALUES ('Eve', 1, 9); DROP TABLE "Person""#)
            )
        } throws: { error in
            guard case SharkError.invalidQuery(let message) = error else { return false }
            return message.contains("one statement")
        }
        #expect(throws: SharkError.self) { _ = try store.rows("SELECT 1; SELECT 2") }
        #expect(try Person.query(in: store).count() == 1)
        // Trailing whitespace, comments and semicolons are fine.
        #expect(
            try store.rows(
                driver.sql(
                    "SELECT count(*) FROM Person;  -- done\n ; /* really */",
                    postgresql: "SELECT count(*) FROM \"Person\";  -- done\n ; /* really */")
            ).rows == [[.integer(1)]])
        #expect(throws: SharkError.self) { _ = try store.rows("   -- nothing here") }
    }
}
