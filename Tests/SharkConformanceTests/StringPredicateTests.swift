import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkDriverConformance

/// Shark's string predicates and orderings: parsed into the query AST, so they give the
/// typed predicates' answers on every driver, and refuse malformed text with positioned errors.
@Suite("String predicates")
struct StringPredicateTests {
    /// Ada 36 (ada@example.com), Alan 41 (alan@test.org), Grace 85, Edsger 72, Barbara 36.
    static func people(in store: Store) throws -> [Person] {
        let people = try QueryResultsTests.people(in: store)
        people[0].email = "ada@example.com"
        people[1].email = "alan@test.org"
        try store.commit(people)
        return people
    }

    static func names(_ store: Store, _ predicate: String, _ arguments: Any...) throws -> [String] {
        try Person.query(in: store).where(predicate, arguments: arguments).orderBy(\.name).fetch().map(\.name)
    }

    @Test("comparisons, placeholders and format specifiers", arguments: TestDriver.allCases)
    func comparisons(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.people(in: store)
        #expect(try Self.names(store, "age = 36") == ["Ada", "Barbara"])
        #expect(try Self.names(store, "age == 36 AND name != 'Ada'") == ["Barbara"])
        #expect(try Self.names(store, "name = %@ AND age > %i", "Ada", 30) == ["Ada"])
        #expect(try Self.names(store, "age > ? AND age < ?", 40, 80) == ["Alan", "Edsger"])
        for specifier in ["%i", "%u", "%d", "%ul", "%ull", "%ld", "%lld", "%lu", "%llu", "%li", "%lli", "%s", "%@"] {
            #expect(try Self.names(store, "age >= \(specifier)", 72) == ["Edsger", "Grace"], "\(specifier)")
        }
        #expect(try Self.names(store, "age < %f", 36.5) == ["Ada", "Barbara"])
        #expect(try Self.names(store, "age <> 36 AND age <= 72") == ["Alan", "Edsger"])
        #expect(try Self.names(store, "name >= \"E\"") == ["Edsger", "Grace"])  // double quotes are strings too
        #expect(try Self.names(store, "NAME = 'Grace' and AGE = 85") == ["Grace"])  // any case
        #expect(try Self.names(store, "`name` = 'Grace'") == ["Grace"])
        #expect(try Self.names(store, "TRUE") == ["Ada", "Alan", "Barbara", "Edsger", "Grace"])
        #expect(try Self.names(store, "FALSE OR age = 41") == ["Alan"])
        #expect(try Self.names(store, "name = 'it''s'").isEmpty)
    }

    @Test("NULL, IN, LIKE, BETWEEN and NOT follow SQL", arguments: TestDriver.allCases)
    func operators(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.people(in: store)
        let nobody: String? = nil
        #expect(try Self.names(store, "email IS NULL") == ["Barbara", "Edsger", "Grace"])
        #expect(try Self.names(store, "email IS NOT NULL") == ["Ada", "Alan"])
        #expect(try Self.names(store, "email = NULL") == ["Barbara", "Edsger", "Grace"])  // as typed == nil
        #expect(try Self.names(store, "email != %@", nobody as Any) == ["Ada", "Alan"])
        #expect(try Self.names(store, "email < NULL").isEmpty)
        #expect(try Self.names(store, "age IN (36, 41)") == ["Ada", "Alan", "Barbara"])
        #expect(try Self.names(store, "age IN %@", [72, 85]) == ["Edsger", "Grace"])
        #expect(try Self.names(store, "age IN (%@)", [72, 85]) == ["Edsger", "Grace"])
        #expect(try Self.names(store, "age IN (41, %@, ?)", [72], 85) == ["Alan", "Edsger", "Grace"])
        #expect(try Self.names(store, "age NOT IN %@", [36, 41, 72]) == ["Grace"])
        #expect(try Self.names(store, "age IN %@", [Int]()).isEmpty)
        #expect(try Self.names(store, "age NOT IN ()") == ["Ada", "Alan", "Barbara", "Edsger", "Grace"])
        #expect(try Self.names(store, "email NOT IN ('alan@test.org')") == ["Ada"])  // NULL stays out
        #expect(try Self.names(store, "name LIKE 'a%'") == ["Ada", "Alan"])
        #expect(try Self.names(store, "name LIKE %@", "_race") == ["Grace"])
        #expect(try Self.names(store, "email NOT LIKE '%example%'") == ["Alan"])
        #expect(try Self.names(store, "age BETWEEN 40 AND 80") == ["Alan", "Edsger"])
        #expect(try Self.names(store, "age NOT BETWEEN 40 AND 80 AND name != 'Ada'") == ["Barbara", "Grace"])
        #expect(try Self.names(store, "NOT (age = 36 OR age = 41)") == ["Edsger", "Grace"])
        #expect(try Self.names(store, "!(age > 40) && (name = 'Ada' || name = 'Barbara')") == ["Ada", "Barbara"])
        #expect(try Self.names(store, "NOT NOT age = 85") == ["Grace"])
    }

    @Test("arithmetic, functions and orderings", arguments: TestDriver.allCases)
    func expressions(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.people(in: store)  // payroll numbers 1…5 in the order above
        #expect(try Self.names(store, "age + payrollNumber > 80") == ["Grace"])
        #expect(try Self.names(store, "age + payrollNumber > 75") == ["Edsger", "Grace"])
        #expect(try Self.names(store, "(age - 30) * 2 = 12") == ["Ada", "Barbara"])
        #expect(try Self.names(store, "age / 10 = 3 AND age % 2 = 0") == ["Ada", "Barbara"])
        #expect(try Self.names(store, "-age < -80") == ["Grace"])
        #expect(try Self.names(store, "age > -(-80)") == ["Grace"])
        #expect(try Self.names(store, "age * 1.5 > 100") == ["Edsger", "Grace"])
        #expect(try Self.names(store, "lower(name) = 'ada'") == ["Ada"])
        #expect(try Self.names(store, "UPPER(name) LIKE 'ED%'") == ["Edsger"])
        #expect(try Self.names(store, "length(name) = 4") == ["Alan"])
        #expect(try Self.names(store, "abs(age - 40) < 2") == ["Alan"])
        #expect(try Self.names(store, "coalesce(email, 'none') = 'none' AND age < 80") == ["Barbara", "Edsger"])
        #expect(try Self.names(store, "age > payrollNumber * 20") == ["Ada", "Alan", "Grace"])
        let ordered = try Person.query(in: store).orderBy("age DESC, name").fetch().map(\.name)
        #expect(ordered == ["Grace", "Edsger", "Alan", "Ada", "Barbara"])
        let byLength = try Person.query(in: store).orderBy("length(name) asc, name DESC").fetch().map(\.name)
        #expect(byLength == ["Ada", "Alan", "Grace", "Edsger", "Barbara"])
        // String orderings append to typed ones.
        let mixed = try Person.query(in: store).orderBy(\.age).orderBy("name desc").fetch().map(\.name)
        #expect(mixed == ["Barbara", "Ada", "Alan", "Edsger", "Grace"])
        // A string predicate combines with typed ones by AND, and means what the typed one means.
        let typed = try Person.query(in: store).where(\.age >= 36 && \.email != nil).orderBy(\.name).fetch()
        let parsed = try Person.query(in: store).where("age >= 36").where("email IS NOT NULL").orderBy(\.name).fetch()
        #expect(typed.map(\.name) == parsed.map(\.name))
        #expect(try Person.query(in: store).where("age > %i", 40).count() == 3)
        #expect(try Person.query(in: store).where("age = 36").sum(\.payrollNumber) == 6)
    }

    @Test("hostile arguments are values: they match nothing and change nothing", arguments: TestDriver.allCases)
    func hostileArguments(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.people(in: store)
        let hostile = [
            "x'; DROP TABLE Person; --", "' OR '1'='1", "1 OR 1=1", "Ada' --", "\"; DELETE FROM Person; --", "%", "_",
        ]
        for argument in hostile {
            #expect(try Self.names(store, "name = %@", argument).isEmpty)
            #expect(try Self.names(store, "name = ? OR age = 85", argument) == ["Grace"])
            #expect(try Self.names(store, "email IN %@", [argument]).isEmpty)
        }
        #expect(try Self.names(store, "name LIKE %@", "%") == ["Ada", "Alan", "Barbara", "Edsger", "Grace"])
        #expect(try Person.query(in: store).count() == 5)
    }

    /// The error a malformed predicate gives, or nil when it parses.
    static func syntaxError(_ predicate: String, _ arguments: Any...) -> PredicateSyntaxError? {
        do {
            _ = try PredicateParser(schema: Person.schema).predicate(predicate, arguments: arguments)
            return nil
        } catch SharkError.malformedPredicate(let error) {
            return error
        } catch {
            return PredicateSyntaxError(
                text: predicate, offset: -1, expected: "a malformed-predicate error", found: "\(error)")
        }
    }

    @Test("malformed predicates name the offset and what was expected")
    func malformed() throws {
        func check(
            _ predicate: String, _ arguments: [Any] = [], offset: Int, expecting expected: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            do {
                _ = try PredicateParser(schema: Person.schema).predicate(predicate, arguments: arguments)
                Issue.record("\(predicate) parsed", sourceLocation: sourceLocation)
            } catch SharkError.malformedPredicate(let error) {
                #expect(error.offset == offset, "\(error)", sourceLocation: sourceLocation)
                #expect(error.expected.contains(expected), "\(error)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(predicate): \(error)", sourceLocation: sourceLocation)
            }
        }
        check("age = 35; DROP TABLE Person", offset: 8, expecting: "one predicate")
        check("age = 35 -- and the rest", offset: 9, expecting: "without comments")
        check("age = /* hi */ 35", offset: 6, expecting: "without comments")
        check("age >= AND name = 'Ada'", offset: 7, expecting: "a value")
        check("age >=", offset: 6, expecting: "a value")
        check("(age = 1", offset: 8, expecting: "')'")
        check("age = 1)", offset: 7, expecting: "AND, OR or the end")
        check("salary > 3", offset: 0, expecting: "a property of Person")
        check("department.name = 'Sales'", offset: 0, expecting: "a relationship of Person")
        check("shout(name) = 'A'", offset: 0, expecting: "a function")
        check("lower(name, age) = 'a'", offset: 0, expecting: "lower with 1 argument")
        check("coalesce(name) = 'a'", offset: 0, expecting: "coalesce with at least 2 arguments")
        check("name = %@", offset: 7, expecting: "an argument for %@")
        check("name = %@", ["Ada", 1], offset: 9, expecting: "as many placeholders as arguments")
        check("name = 'Ada", offset: 7, expecting: "the closing '")
        check("name = `Ada", offset: 7, expecting: "the closing `")
        check("age = 12abc", offset: 6, expecting: "a number")
        check("age = 1e999", offset: 6, expecting: "within the range")
        check("age IN (name)", offset: 8, expecting: "a literal or an argument")
        check("age IN 3", offset: 7, expecting: "( or an array argument")
        check("age = %@", [[1, 2]], offset: 6, expecting: "a single value")
        check("age NOT 3", offset: 8, expecting: "LIKE, BETWEEN or IN")
        check("age IS 3", offset: 7, expecting: "NULL")
        check("age BETWEEN 1 OR 2", offset: 14, expecting: "AND")
        check("age = #", offset: 6, expecting: "a predicate")
        check("age & 1", offset: 4, expecting: "&&")
        check("name = %@", [NSObject()], offset: 7, expecting: "a type SharkORM can store")
        check("", offset: 0, expecting: "a value")
        check("AND", offset: 0, expecting: "a value")
        check(
            String(repeating: "(", count: 100) + "age = 1" + String(repeating: ")", count: 100), offset: 64,
            expecting: "nested parentheses")
        check(String(repeating: "NOT ", count: 10_000) + "age = 1", offset: 256, expecting: "nested")
        check(
            "age = " + Array(repeating: "1", count: 40).joined(separator: " + "), offset: 6,
            expecting: "nested at most")
        // Long flat chains are fine.
        let chain = Array(repeating: "age = 1", count: 5_000).joined(separator: " OR ")
        #expect(Self.syntaxError(chain) == nil)
        // The message points at the place.
        let error = try #require(Self.syntaxError("age >= AND name = 'Ada'"))
        #expect(error.description.hasSuffix("  age >= AND name = 'Ada'\n         ^"))
    }

    @Test("malformed predicates and orderings make the query throw, on every driver", arguments: TestDriver.allCases)
    func malformedQueries(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.people(in: store)
        func isMalformed(_ error: any Error) -> Bool {
            if case SharkError.malformedPredicate = error { return true }
            return false
        }
        let people = try Person.query(in: store)
        #expect(performing: { try people.where("age = ").fetch() }, throws: isMalformed)
        #expect(performing: { try people.where("nope = 1").count() }, throws: isMalformed)
        #expect(performing: { try people.where(\.age > 1).where("age = %@").first() }, throws: isMalformed)
        #expect(performing: { try people.orderBy("age DESC DESC").fetch() }, throws: isMalformed)
        #expect(performing: { try people.orderBy("").fetch() }, throws: isMalformed)
        #expect(performing: { try people.orderBy("nope").fetch() }, throws: isMalformed)
        #expect(performing: { try people.orderBy("age; DROP TABLE Person").fetch() }, throws: isMalformed)
        #expect(try people.count() == 5)
    }
}
