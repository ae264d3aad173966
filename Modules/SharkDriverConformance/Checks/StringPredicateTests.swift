import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

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

    func comparisons(driver: ConformanceDriver) throws {
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

    func operators(driver: ConformanceDriver) throws {
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

    func expressions(driver: ConformanceDriver) throws {
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

    func hostileArguments(driver: ConformanceDriver) throws {
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

    func malformedQueries(driver: ConformanceDriver) throws {
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
