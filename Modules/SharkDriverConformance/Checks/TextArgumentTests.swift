import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Predicate arguments given as text (the command line's), read as the type of the property
/// they are compared with, give the typed arguments' answers on every driver.
@Suite("Text arguments of string predicates")
struct TextArgumentTests {
    static let uuid = UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!

    /// Two rows of every type: `first` with distinctive values, `second` with the defaults.
    static func rows(in store: Store) throws -> (first: AllTypes, second: AllTypes) {
        let first = AllTypes()
        first.bool = true
        first.int = -42
        first.uint64 = UInt64(Int64.max)
        first.double = 2.5
        first.string = "30"
        first.data = Data([0xCA, 0xFE])
        first.date = Date(timeIntervalSince1970: 1_714_521_600)  // 2024-05-01T00:00:00Z
        first.uuid = uuid
        first.decimal = Decimal(string: "10.25")!
        let second = AllTypes()
        try store.commit([first, second])
        return (first, second)
    }

    static func matches(_ store: Store, _ predicate: String, _ arguments: String...) throws -> Int {
        let schema = try store.recordedSchema(of: "AllTypes")
        let parsed = try PredicateParser(schema: schema).predicate(predicate, textArguments: arguments)
        return try store.fetchRows(of: "AllTypes", where: parsed).count
    }

    func eachType(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.rows(in: store)
        #expect(try Self.matches(store, "bool = ?", "true") == 1)
        #expect(try Self.matches(store, "bool = ?", "no") == 1)
        #expect(try Self.matches(store, "int = ?", "-42") == 1)
        #expect(try Self.matches(store, "int < ?", "0") == 1)
        #expect(try Self.matches(store, "uint64 = ?", "9223372036854775807") == 1)
        // Above Int64.max: larger than every stored value.
        #expect(try Self.matches(store, "uint64 = ?", "18446744073709551615") == 0)
        #expect(try Self.matches(store, "uint64 < ?", "18446744073709551615") == 2)
        #expect(try Self.matches(store, "double > ?", "2.4") == 1)
        #expect(try Self.matches(store, "double BETWEEN ? AND ?", "2", "3") == 1)
        // Text stays text, even when it reads as a number.
        #expect(try Self.matches(store, "string = ?", "30") == 1)
        #expect(try Self.matches(store, "data = ?", "cafe") == 1)
        #expect(try Self.matches(store, "data = ?", "x'CAFE'") == 1)
        #expect(try Self.matches(store, "date = ?", "2024-05-01") == 1)
        #expect(try Self.matches(store, "date = ?", "2024-05-01T02:00:00+02:00") == 1)
        #expect(try Self.matches(store, "date > ?", "2024-04-30T23:59:59.5Z") == 1)
        #expect(try Self.matches(store, "uuid = ?", Self.uuid.uuidString) == 1)
        #expect(try Self.matches(store, "uuid = ?", Self.uuid.uuidString.lowercased()) == 1)
        #expect(try Self.matches(store, "uuid IN (?, ?)", UUID().uuidString, Self.uuid.uuidString) == 1)
        #expect(try Self.matches(store, "decimal > ?", "9.5") == 1)
        #expect(try Self.matches(store, "decimal = ?", "10.250") == 1)
        #expect(try Self.matches(store, "decimal < ?", " 100") == 2)
        #expect(try Self.matches(store, "decimal > ?", "-1e3") == 2)
        // Compared with no property: a number when it reads as one.
        #expect(try Self.matches(store, "int + ? = 0", "42") == 1)
        #expect(try Self.matches(store, "? = ?", "1", "1.0") == 2)
    }

    func refused(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.rows(in: store)
        let cases: [(String, String, String)] = [
            ("int = ?", "forty", "an integer for int"),
            ("bool = ?", "maybe", "true or false for bool"),
            ("uuid = ?", "not-a-uuid", "a UUID for uuid"),
            ("data = ?", "xyz", "hexadecimal bytes for data"),
            ("date < ?", "yesterday", "a date"),
            ("double > ?", "nan", "a number for double"),
            ("uint64 = ?", "-1", "an unsigned integer for uint64"),
            ("decimal > ?", "abc", "a decimal number for decimal"),
            ("decimal > ?", "1234567890123456789012345678901234567890.5", "a decimal number for decimal"),
            ("decimal > ?", "12abc", "a decimal number for decimal"),
            ("decimal > ?", "P5017", "a decimal number for decimal"),
        ]
        for (predicate, argument, expected) in cases {
            #expect {
                _ = try Self.matches(store, predicate, argument)
            } throws: { error in
                guard case SharkError.malformedPredicate(let syntax) = error else { return false }
                return syntax.expected.contains(expected)
                    && syntax.offset
                        == predicate.distance(from: predicate.startIndex, to: predicate.firstIndex(of: "?")!)
            }
        }
    }
}
