import Foundation
import SharkORM

@testable import SharkDriverConformance

/// Random string predicates over ``Sample`` that are valid by construction, with their
/// arguments: for the differential test (the engines must agree on them) and as seeds for
/// the parser's fuzz test.
struct RandomPredicateText {
    var random: SeededGenerator
    private(set) var arguments: [Any] = []
    private var argumentsAllowed = true

    init(random: SeededGenerator) { self.random = random }

    /// A parser for ``Sample``, whose `parent` paths lead to ``Sample`` again.
    static let parser = PredicateParser(schema: Sample.schema) { $0 == "Sample" ? Sample.schema : nil }

    /// A predicate and the arguments its placeholders take.
    mutating func predicate() -> (String, [Any]) {
        arguments = []
        let text = condition(depth: 0)
        return (text, arguments)
    }

    /// An ordering: one to three terms, each with or without a direction (orderings take no
    /// arguments).
    mutating func ordering() -> String {
        argumentsAllowed = false
        defer { argumentsAllowed = true }
        return (0..<Int.random(in: 1...3, using: &random)).map { _ in
            let term = Bool.random(using: &random) ? number(depth: 2) : text(depth: 2)
            return term + ["", " ASC", " DESC", " desc"].randomElement(using: &random)!
        }.joined(separator: ", ")
    }

    private mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &random)! }

    private mutating func placeholder() -> String { pick(["?", "%@", "%i", "%d", "%s", "%ull"]) }

    private mutating func condition(depth: Int) -> String {
        switch Int.random(in: 0..<(depth > 2 ? 8 : 12), using: &random) {
        case 0, 1:
            return number(depth: depth) + " " + pick(["=", "==", "!=", "<>", "<", "<=", ">", ">="]) + " "
                + number(depth: depth)
        case 2: return text(depth: depth) + " " + pick(["=", "!=", "<", ">="]) + " " + text(depth: depth)
        case 3: return text(depth: depth) + pick([" LIKE ", " NOT LIKE ", " like "]) + pattern()
        case 4:
            return number(depth: depth) + pick([" BETWEEN ", " NOT BETWEEN "]) + number(depth: 3) + " AND "
                + number(depth: 3)
        case 5: return membership()
        case 6:
            return pick(["note", "score", "lower(note)", "coalesce(note, score)"]) + pick([" IS NULL", " IS NOT NULL"])
        case 7: return pick(["flag", "NOT flag", "TRUE", "FALSE", "age", "score"])
        case 8: return condition(depth: depth + 1) + pick([" AND ", " and ", " && "]) + condition(depth: depth + 1)
        case 9: return condition(depth: depth + 1) + pick([" OR ", " || "]) + condition(depth: depth + 1)
        case 10: return pick(["NOT ", "!"]) + "(" + condition(depth: depth + 1) + ")"
        default: return "(" + condition(depth: depth + 1) + ")"
        }
    }

    private mutating func membership() -> String {
        let subject = pick(["age", "code", "name", "note", "score", "abs(age)"])
        let negation = pick(["", " NOT"])
        let values: [Any] = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            Bool.random(using: &random) ? Int.random(in: -2...12, using: &random) : pick(["a", "b", "Ed", "x"]) as Any
        }
        if Bool.random(using: &random) {
            arguments.append(values)
            return subject + negation + pick([" IN %@", " IN (%@)", " IN ?"])
        }
        let literals = values.map { value in value is Int ? "\(value)" : "'\(value)'" }
        return subject + negation + " IN (" + literals.joined(separator: ", ") + ")"
    }

    private mutating func pattern() -> String {
        let pattern = pick(["a%", "%d", "_", "%", "E%", "%e%", "_d%", "B", ""])
        if Bool.random(using: &random) {
            arguments.append(pattern)
            return placeholder()
        }
        return "'" + pattern + "'"
    }

    private mutating func number(depth: Int) -> String {
        var choice = Int.random(in: 0..<(depth > 2 ? 6 : 11), using: &random)
        // Without arguments (in orderings), a leaf instead of a placeholder: falling through to
        // the nesting cases would nest without bound, past the drivers' limit.
        if choice == 4 && !argumentsAllowed { choice = 0 }
        switch choice {
        case 0: return pick(["age", "code", "AGE"])
        case 1: return pick(["score", "flag", "parent.age", "parent.code", "parent.parent.age", "parent.score"])
        case 2: return String(Int.random(in: -3...15, using: &random))
        case 3: return pick(["0.5", "2.5", "-1.25", "1e1", "10.0"])
        case 4:
            arguments.append(Bool.random(using: &random) ? Int.random(in: -2...12, using: &random) as Any : 2.5)
            return placeholder()
        case 5: return "length(" + pick(["name", "note"]) + ")"
        case 6:
            // A divisor is a non-zero literal: a division by zero is an error, and which rows an
            // engine evaluates (an index can skip some) would decide whether a query meets one.
            // Value rules › integer arithmetic… tests division by zero itself.
            let op = pick(["+", "-", "*", "/", "%"])
            let rhs = op == "/" || op == "%" ? pick(["3", "-2", "2.5", "7"]) : number(depth: depth + 1)
            return number(depth: depth + 1) + " " + op + " " + rhs
        case 7: return "(" + number(depth: depth + 1) + ")"
        case 8: return "abs(" + number(depth: depth + 1) + ")"
        case 9: return "coalesce(score, " + number(depth: depth + 1) + ")"
        default: return "- " + number(depth: depth + 1)  // "--" would start a comment
        }
    }

    private mutating func text(depth: Int) -> String {
        var choice = Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &random)
        if (choice == 2 || choice == 3) && !argumentsAllowed { choice = 0 }
        switch choice {
        case 0: return pick(["name", "note", "`name`", "parent.name", "parent.note", "parent.parent.name"])
        case 1: return "'" + pick(["a", "Ed", "b", "", "x'y".replacingOccurrences(of: "'", with: "''")]) + "'"
        case 2:
            arguments.append(pick(["a", "Ed", "b", "", "x'y"]) as Any)
            return placeholder()
        case 3:
            arguments.append(Optional<String>.none as Any)
            return "%@"
        case 4: return pick(["lower(", "upper(", "UPPER("]) + text(depth: depth + 1) + ")"
        default: return "coalesce(note, " + text(depth: depth + 1) + ")"
        }
    }
}
