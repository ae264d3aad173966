/// Why a string predicate or ordering could not be parsed, and where.
///
/// ```swift
/// do {
///     _ = try Person.query(in: store).where("age >= AND name = 'Ada'").fetch()
/// } catch SharkError.malformedPredicate(let error) {
///     print(error.offset, error.expected, error.found)   // 7 a value "AND"
/// }
/// ```
public struct PredicateSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The predicate as given.
    public var text: String
    /// Where the problem starts: the number of characters before it (0 is the first).
    public var offset: Int
    /// What the parser expected there ("a value", "a property of Person", ")").
    public var expected: String
    /// What it found instead, as written ("AND", "';'", "end of text").
    public var found: String

    public init(text: String, offset: Int, expected: String, found: String) {
        self.text = text
        self.offset = offset
        self.expected = expected
        self.found = found
    }

    /// `expected a value at offset 7, found "AND"`, then the predicate with a caret under
    /// the offset.
    public var description: String {
        let line = text.contains("\n") ? text.replacingOccurrences(of: "\n", with: " ") : text
        return "expected \(expected) at offset \(offset), found \(found)\n  \(line)\n  "
            + String(repeating: " ", count: offset) + "^"
    }
}
