import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkDriverConformance

/// The string-predicate parser's errors, before any driver sees a query.
@Suite("Malformed predicates")
struct MalformedPredicateTests {
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
        #expect(StringPredicateTests.syntaxError(chain) == nil)
        // The message points at the place.
        let error = try #require(StringPredicateTests.syntaxError("age >= AND name = 'Ada'"))
        #expect(error.description.hasSuffix("  age >= AND name = 'Ada'\n         ^"))
    }
}
