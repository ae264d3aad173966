import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkDriverConformance

/// The string-predicate parser against random text and random mutations of valid predicates:
/// every input either parses or is refused with a positioned ``SharkError/malformedPredicate(_:)``.
/// A trap or a hang would end the test run.
///
/// Replay with `SHARK_FUZZ_SEED=<seed> swift test --filter PredicateFuzz`.
@Suite("String predicate fuzz")
struct PredicateFuzzTests {
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["SHARK_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_123
    }

    /// Characters and fragments the inputs are made of: the language's own, and what it refuses.
    static let fragments = [
        " ", " ", "a", "age", "name", "note", "score", "x", "(", ")", "'", "\"", "`", "%", "%@", "%i", "%ull", "?",
        "=", "==", "!=", "<>", "<", ">=", "!", "&&", "||", "&", "|", "+", "-", "*", "/", ".", ",", ";", "--", "/*",
        "*/", "0", "1", "12", "3.5", "1e", "1e999", "99999999999999999999", "9223372036854775808", "AND", "OR",
        "NOT", "LIKE", "BETWEEN", "IN", "IS", "NULL", "TRUE", "lower(", "coalesce(", "abs(", "é", "\u{0}", "\n",
        "\t", "🦈", "DROP TABLE Sample", "department.name",
    ]

    /// A new array per call: `[Any]` is not `Sendable`, so it cannot be a shared constant.
    static var argumentChoices: [Any] {
        [
            1, -5, 2.5, "Ed", "x'; DROP TABLE Sample; --", [1, 2], [String](), Optional<Int>.none as Any, true,
            Data([1, 2]), NSObject(),
        ]
    }

    @Test("100,000 random and mutated predicates: typed errors only")
    func fuzz() {
        let seed = Self.seed
        var random = SeededGenerator(state: seed)
        var valid = RandomPredicateText(random: SeededGenerator(state: seed ^ 0x5EED))
        let parser = RandomPredicateText.parser
        let argumentChoices = Self.argumentChoices
        var parsed = 0
        var refused = 0
        for index in 0..<100_000 {
            var text: String
            var arguments: [Any]
            // A third random text, a third mutated valid predicates, a third valid ones as
            // generated (which must parse).
            let mustParse = index % 3 == 2
            if index % 3 == 0 {
                let count = Int.random(in: 0...24, using: &random)
                text = (0..<count).map { _ in Self.fragments.randomElement(using: &random)! }.joined()
                arguments = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    argumentChoices.randomElement(using: &random)!
                }
            } else {
                (text, arguments) = valid.predicate()
                if index % 10 == 9 { text = valid.ordering() }
                if !mustParse { Self.mutate(&text, &arguments, choices: argumentChoices, using: &random) }
            }
            do throws(SharkError) {
                if index % 10 == 9 {
                    _ = try parser.ordering(text)
                } else {
                    _ = try parser.predicate(text, arguments: arguments)
                }
                parsed += 1
            } catch {
                guard case .malformedPredicate(let syntax) = error, !mustParse else {
                    Issue.record("seed \(seed), input \(index): \(text.debugDescription) threw \(error)")
                    continue
                }
                refused += 1
                if !(0...text.count).contains(syntax.offset) || syntax.text != text {
                    Issue.record("seed \(seed), input \(index): \(text.debugDescription) → offset \(syntax.offset)")
                }
            }
        }
        // Both outcomes were exercised, in earnest.
        #expect(parsed > 33_333, "seed \(seed)")
        #expect(refused > 5_000, "seed \(seed)")
    }

    /// One to three edits: a deletion, an insertion of a fragment, a truncation, a repeated
    /// span, a swapped pair of characters; sometimes an argument too many or too few.
    static func mutate(
        _ text: inout String, _ arguments: inout [Any], choices: [Any], using random: inout SeededGenerator
    ) {
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            var characters = Array(text)
            let at = Int.random(in: 0...characters.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                let end = min(characters.count, at + Int.random(in: 1...5, using: &random))
                characters.removeSubrange(at..<end)
            case 1:
                characters.insert(contentsOf: fragments.randomElement(using: &random)!, at: at)
            case 2:
                characters.removeSubrange(at...)
            case 3:
                let end = min(characters.count, at + Int.random(in: 1...8, using: &random))
                characters.insert(contentsOf: characters[at..<end], at: at)
            case 4:
                if characters.count > 1 {
                    let other = Int.random(in: 0..<characters.count, using: &random)
                    characters.swapAt(min(at, characters.count - 1), other)
                }
            default:
                if Bool.random(using: &random), !arguments.isEmpty {
                    arguments.removeLast()
                } else {
                    arguments.append(choices.randomElement(using: &random)!)
                }
            }
            text = String(characters)
        }
    }
}
