/// A function of one row's values that a query may call, with the same rules on every driver
/// (SQLite's, which the memory engine follows).
///
/// - `lower`, `upper`: the text with ASCII letters changed (other letters are left as they
///   are, as SQLite does without ICU); a number is first written as text.
/// - `length`: the characters of a text, the bytes of a blob, the characters of a number
///   written as text.
/// - `abs`: the magnitude of a number; text that is not a number counts as 0.0, and the
///   magnitude of the smallest 64-bit integer, which has none, fails the query with
///   ``SharkError/invalidValue(_:)``.
/// - `coalesce`: the first of its two or more arguments that is not NULL.
///
/// Every function returns NULL for a NULL argument, except `coalesce`.
///
/// ```swift
/// let shouting = try Person.query(in: store).where(.upper(\.name) == "BOB").fetch()
/// ```
public enum ScalarFunction: String, Sendable, Hashable, CaseIterable {
    case lower
    case upper
    case length
    case abs
    case coalesce

    /// How many arguments the function takes: exactly one, or for `coalesce` at least two.
    public var arity: ClosedRange<Int> {
        switch self {
        case .coalesce: return 2...Int.max
        default: return 1...1
        }
    }
}
