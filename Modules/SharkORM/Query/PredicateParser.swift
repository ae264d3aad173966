import Foundation

/// Parses Shark's string predicates and orderings into the query AST, against an entity's
/// schema, so that they run on every driver exactly as typed predicates do.
///
/// ```swift
/// let parser = PredicateParser(schema: try Person.validatedSchema())
/// let adults = try parser.predicate("age >= %i AND name LIKE ?", arguments: [18, "A%"])
/// let order = try parser.ordering("name, age DESC")
/// let rows = try store.fetchRows(of: "Person", where: adults, orderedBy: order)
/// ```
///
/// Apps usually go through ``Query/where(_:_:)`` and ``Query/orderBy(_:)-(String)``; the
/// parser itself serves callers that have a schema but no model type (the command line).
///
/// The language is SQL's expression syntax, minus everything that is not an expression:
///
/// - comparisons `=` (or `==`), `!=` (or `<>`), `<`, `<=`, `>`, `>=`; `AND` (`&&`), `OR`
///   (`||`), `NOT` (`!`); `[NOT] LIKE`, `[NOT] BETWEEN … AND …`, `[NOT] IN (…)`,
///   `IS [NOT] NULL`; `+ - * / %`; parentheses;
/// - string (`'it''s'` or `"x"`), number, `NULL`, `TRUE` and `FALSE` literals;
/// - the functions `lower`, `upper`, `length`, `abs`, `coalesce` (see ``ScalarFunction``);
/// - property names, between backticks when one is spelled like a keyword (a property named
///   `order`);
/// - arguments: `?` or the format specifiers `%@ %i %u %d %s %f %ul %ull` (and their `l`/`ll`
///   forms), each taking the next argument. An array argument after `IN` is the list
///   (`IN %@` or `IN (%@)`); nil is NULL.
///
/// As with typed predicates, `= NULL` (or a nil argument) means `IS NULL` and `!= NULL`
/// means `IS NOT NULL`. Keywords and property names match regardless of case.
///
/// Everything else is refused with ``SharkError/malformedPredicate(_:)``, naming the offset
/// and what was expected: a `;`, comments, unknown properties and functions, a wrong number
/// of arguments. Arguments are values: whatever text they hold is compared, never parsed.
public struct PredicateParser: Sendable {
    /// The entity whose properties the predicates name.
    public let schema: EntitySchema

    /// How deeply parentheses, `NOT` and signs may nest in the text, whatever the AST makes
    /// of them: a bound on the parser's recursion.
    static let maximumTextNesting = 64

    /// The schemas of related entities, for dotted paths (`department.name`); nil for an
    /// entity it does not know.
    let relatedSchema: @Sendable (String) -> EntitySchema?

    /// A parser for predicates on `schema`; `relatedSchema` gives the schemas of the entities
    /// its relationships refer to, so that dotted paths through them resolve.
    ///
    /// ```swift
    /// let parser = PredicateParser(schema: employees) { name in name == "Department" ? departments : nil }
    /// let inSales = try parser.predicate("department.name = 'Sales'")
    /// ```
    public init(schema: EntitySchema, relatedSchema: @escaping @Sendable (String) -> EntitySchema? = { _ in nil }) {
        self.schema = schema
        self.relatedSchema = relatedSchema
    }

    /// The predicate `text`, with `arguments` for its placeholders in order.
    ///
    /// ```swift
    /// let named = try parser.predicate("name = %@ AND age > %i", arguments: ["Ada", 30])
    /// ```
    public func predicate(_ text: String, arguments: [Any] = []) throws(SharkError) -> QueryExpression {
        var parse = Parse(
            text: text, tokens: try PredicateLexer.tokens(of: text), parser: self, arguments: arguments)
        let node = try parse.disjunction()
        try parse.expectEnd(expected: "AND, OR or the end of the predicate")
        return node.expression
    }

    /// The predicate `text`, with arguments typed as text (on a command line, say), each
    /// read as the type of the property it is compared with: `"30"` is the integer 30 for
    /// `age`, a UUID's text is its 16 bytes for a UUID property, `"2024-05-01"` or an ISO 8601
    /// date and time is a date, `"true"` a Bool, hexadecimal digits a blob. An argument that
    /// is not compared with a property (`age + ? > 40`) is an integer or a real when it reads
    /// as one, text otherwise. Text that does not read as its property's type is
    /// ``SharkError/malformedPredicate(_:)``.
    ///
    /// ```swift
    /// let grown = try parser.predicate("age > ? AND id != ?", textArguments: ["17", "3F2504E0-4F89-11D3-9A0C-0305E82C3301"])
    /// ```
    public func predicate(_ text: String, textArguments: [String]) throws(SharkError) -> QueryExpression {
        try predicate(text, arguments: textArguments.map(TextArgument.init))
    }

    /// The orderings in `text`: comma-separated properties or expressions, each optionally
    /// followed by `ASC` or `DESC`.
    ///
    /// ```swift
    /// let order = try parser.ordering("lower(name), age DESC")
    /// ```
    public func ordering(_ text: String) throws(SharkError) -> [Ordering] {
        var parse = Parse(text: text, tokens: try PredicateLexer.tokens(of: text), parser: self, arguments: [])
        var orderings: [Ordering] = []
        repeat {
            let term = try parse.additive()
            var ascending = true
            if parse.acceptKeyword("DESC") {
                ascending = false
            } else {
                _ = parse.acceptKeyword("ASC")
            }
            orderings.append(Ordering(term.expression, ascending: ascending))
        } while parse.acceptSymbol(",")
        try parse.expectEnd(expected: "',', ASC, DESC or the end of the ordering")
        return orderings
    }
}

/// One run of the parser over one text: recursive descent, one function per precedence
/// level, each returning the expression and its depth as ``QueryExpression/nestingDepth``
/// counts it, so that a predicate too deep for the drivers is refused where it gets too deep.
private struct Parse {
    typealias Token = PredicateLexer.Token

    struct Node {
        var expression: QueryExpression
        var depth: Int
        var offset: Int
        /// The property this node reads, when it is one (a column or the end of a path).
        var column: ColumnSchema? = nil
        /// The text of an argument given as text, still to be read as the type of the
        /// property it is compared with.
        var argumentText: String? = nil
        /// What the node computes, so that a decimal meets decimals (see `Kind`).
        var kind: Kind = .number
        /// A number literal's own text (sign included), read exactly when it meets a decimal.
        var numberText: String? = nil
    }

    /// What an expression computes, as far as the parser can tell: enough to read a literal
    /// that meets a `Decimal` as a decimal (never through a `Double`), and to refuse
    /// arithmetic on text and text functions on decimals where they are written.
    enum Kind {
        case number, decimal, text, blob
        /// NULL, or a column whose type is not recorded.
        case unknown

        init(of value: Value) {
            switch value {
            case .integer, .real: self = .number
            case .text: self = .text
            case .blob: self = .blob
            case .null: self = .unknown
            }
        }

        init(of column: ColumnSchema) {
            switch column.logicalType {
            case .sortableDecimal?, .decimal?: self = .decimal
            case .string?, .url?, .json?: self = .text
            case .data?, .uuid?: self = .blob
            case .bool?, .integer?, .unsignedInteger?, .real?, .date?: self = .number
            case nil:
                switch column.type {
                case .integer, .real: self = .number
                case .text: self = .text
                case .blob: self = .blob
                }
            }
        }
    }

    /// An argument, converted to a stored value when its placeholder is reached.
    enum Argument {
        case value(Value)
        /// A `Decimal`, in its stored text.
        case decimal(Value)
        case list([Value])
        /// Given as text, typed by what it is compared with (see `TextArgument`).
        case text(String)
    }

    let text: String
    let tokens: [Token]
    let parser: PredicateParser
    let arguments: [Any]
    private var index = 0
    private var argumentsUsed = 0
    private var textNesting = 0

    init(text: String, tokens: [Token], parser: PredicateParser, arguments: [Any]) {
        self.text = text
        self.tokens = tokens
        self.parser = parser
        self.arguments = arguments
    }

    var schema: EntitySchema { parser.schema }

    // MARK: Tokens

    private var current: Token { tokens[index] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func failure(_ expected: String, at token: Token? = nil) -> SharkError {
        let token = token ?? current
        return .malformedPredicate(
            PredicateSyntaxError(text: text, offset: token.offset, expected: expected, found: Self.describe(token)))
    }

    private func failure(_ expected: String, found: String, offset: Int) -> SharkError {
        .malformedPredicate(PredicateSyntaxError(text: text, offset: offset, expected: expected, found: found))
    }

    static func describe(_ token: Token) -> String {
        switch token.kind {
        case .word(let word, let quoted): return quoted ? "`\(word)`" : "\"\(word)\""
        case .number(let number): return number
        case .string(let string): return "'" + string.replacingOccurrences(of: "'", with: "''") + "'"
        case .placeholder(let placeholder): return placeholder
        case .symbol(let symbol): return "\"\(symbol)\""
        case .end: return "end of text"
        }
    }

    private func isKeyword(_ keyword: String, _ token: Token? = nil) -> Bool {
        if case .word(let word, quoted: false) = (token ?? current).kind {
            return word.count == keyword.count && word.uppercased() == keyword
        }
        return false
    }

    mutating func acceptKeyword(_ keyword: String) -> Bool {
        guard isKeyword(keyword) else { return false }
        advance()
        return true
    }

    mutating func acceptSymbol(_ symbols: String...) -> Bool {
        guard case .symbol(let symbol) = current.kind, symbols.contains(symbol) else { return false }
        advance()
        return true
    }

    private mutating func expectKeyword(_ keyword: String, _ expected: String) throws(SharkError) {
        guard acceptKeyword(keyword) else { throw failure(expected) }
    }

    private mutating func expectSymbol(_ symbol: String, _ expected: String) throws(SharkError) {
        guard acceptSymbol(symbol) else { throw failure(expected) }
    }

    mutating func expectEnd(expected: String) throws(SharkError) {
        guard current.kind == .end else { throw failure(expected) }
        guard argumentsUsed == arguments.count else {
            throw failure(
                "as many placeholders as arguments",
                found: "\(arguments.count) arguments for \(argumentsUsed) placeholder(s)", offset: current.offset)
        }
    }

    /// Words that cannot name a property unless quoted with backticks.
    private static let keywords: Set<String> = [
        "AND", "OR", "NOT", "LIKE", "BETWEEN", "IN", "IS", "NULL", "TRUE", "FALSE", "ASC", "DESC",
    ]

    // MARK: Depth

    /// A node above its operands (given in the order of the expression's own), as deep as
    /// ``QueryExpression/nestingDepth`` counts it; refused when deeper than the drivers allow.
    private func node(_ expression: QueryExpression, over operands: [Node], offset: Int)
        throws(SharkError) -> Node
    {
        var depth = 1
        for (position, operand) in operands.enumerated() {
            depth = max(depth, operand.depth + expression.levels(aboveOperandAt: position))
        }
        guard depth <= QueryExpression.maximumNestingDepth else {
            throw failure(
                "a predicate nested at most \(QueryExpression.maximumNestingDepth) levels deep",
                found: "one \(depth) levels deep", offset: offset)
        }
        return Node(expression: expression, depth: depth, offset: offset)
    }

    /// Runs `body` one level deeper into the text (parentheses, `NOT`, a sign, a call).
    private mutating func nested<T>(at token: Token, _ body: (inout Parse) throws(SharkError) -> T)
        throws(SharkError) -> T
    {
        guard textNesting < PredicateParser.maximumTextNesting else {
            throw failure("at most \(PredicateParser.maximumTextNesting) nested parentheses, NOTs or signs", at: token)
        }
        textNesting += 1
        defer { textNesting -= 1 }
        return try body(&self)
    }

    // MARK: Grammar

    /// `a OR b OR …`, one flat list.
    mutating func disjunction() throws(SharkError) -> Node {
        try list(separatedBy: "OR", symbol: "||") { parse throws(SharkError) in try parse.conjunction() }
    }

    /// `a AND b AND …`, one flat list.
    private mutating func conjunction() throws(SharkError) -> Node {
        try list(separatedBy: "AND", symbol: "&&") { parse throws(SharkError) in try parse.negation() }
    }

    private mutating func list(
        separatedBy keyword: String, symbol: String, _ term: (inout Parse) throws(SharkError) -> Node
    ) throws(SharkError) -> Node {
        let first = try term(&self)
        var terms = [first]
        while acceptKeyword(keyword) || acceptSymbol(symbol) { terms.append(try term(&self)) }
        guard terms.count > 1 else { return first }
        let operands = terms.map(\.expression)
        let expression: QueryExpression = keyword == "AND" ? .and(operands) : .or(operands)
        return try node(expression, over: terms, offset: first.offset)
    }

    /// `NOT a` (or `!a`).
    private mutating func negation() throws(SharkError) -> Node {
        let start = current
        guard acceptKeyword("NOT") || acceptSymbol("!") else { return try comparison() }
        let operand = try nested(at: start) { parse throws(SharkError) in try parse.negation() }
        return try node(.not(operand.expression), over: [operand], offset: start.offset)
    }

    /// A comparison, LIKE, BETWEEN, IN or IS [NOT] NULL on two sums, or a sum alone.
    private mutating func comparison() throws(SharkError) -> Node {
        let lhs = try additive()
        if case .symbol(let symbol) = current.kind, let op = Self.comparisonOperators[symbol] {
            advance()
            let rhs = try additive()
            return try compare(lhs, op, rhs)
        }
        if acceptKeyword("IS") {
            let negated = acceptKeyword("NOT")
            try expectKeyword("NULL", negated ? "NULL" : "NULL or NOT NULL")
            let test = try node(.isNull(lhs.expression), over: [lhs], offset: lhs.offset)
            return negated ? try node(.not(test.expression), over: [test], offset: lhs.offset) : test
        }
        let negated = acceptKeyword("NOT")
        let result: Node
        if acceptKeyword("LIKE") {
            let pattern = try additive()
            try refuseDecimal(lhs, for: "LIKE")
            try refuseDecimal(pattern, for: "LIKE")
            result = try node(.like(lhs.expression, pattern.expression), over: [lhs, pattern], offset: lhs.offset)
        } else if acceptKeyword("BETWEEN") {
            var subject = lhs
            var lower = try typed(try additive(), comparedWith: lhs)
            try expectKeyword("AND", "AND and the upper bound of BETWEEN")
            var upper = try typed(try additive(), comparedWith: lhs)
            if [lower, upper].contains(where: { $0.kind == .decimal }) { subject = try decimal(subject) }
            lower = try comparable(lower, with: subject)
            upper = try comparable(upper, with: subject)
            result = try node(
                .between(subject.expression, lower.expression, upper.expression), over: [subject, lower, upper],
                offset: lhs.offset)
        } else if acceptKeyword("IN") {
            var values: [Node] = []
            for item in try valueList() {
                values.append(try comparable(try typed(item, comparedWith: lhs), with: lhs))
            }
            let list = values.compactMap { node -> Value? in
                if case .value(let value) = node.expression { return value }
                return nil
            }
            result = try node(.isIn(lhs.expression, list), over: [lhs], offset: lhs.offset)
        } else if negated {
            throw failure("LIKE, BETWEEN or IN after NOT", at: current)
        } else {
            return lhs
        }
        return negated ? try node(.not(result.expression), over: [result], offset: lhs.offset) : result
    }

    /// `lhs op rhs`: numbers only. With a decimal operand it is decimal arithmetic, and a
    /// number literal on the other side is read as the decimal it spells.
    private func arithmetic(_ op: ArithmeticOperator, _ lhs: Node, _ rhs: Node, at offset: Int)
        throws(SharkError) -> Node
    {
        for operand in [lhs, rhs] where operand.kind == .text || operand.kind == .blob {
            throw failure(
                "a number for \(op.rawValue)", found: operand.kind == .text ? "text" : "bytes", offset: operand.offset)
        }
        let isDecimal = lhs.kind == .decimal || rhs.kind == .decimal
        if isDecimal && op == .remainder {
            throw failure("integers or reals for %", found: "a decimal", offset: offset)
        }
        let left = isDecimal ? try decimal(lhs) : lhs
        let right = isDecimal ? try decimal(rhs) : rhs
        var result = try node(.arithmetic(op, left.expression, right.expression), over: [left, right], offset: offset)
        result.kind = isDecimal ? .decimal : (lhs.kind == .unknown || rhs.kind == .unknown ? .unknown : .number)
        return result
    }

    /// `node` as a decimal: a number literal (or argument) read exactly as the decimal it
    /// spells, in the sortable text decimals are stored in; a computed number made a decimal
    /// by adding decimal zero (ValueArithmetic turns an integer or a real into a decimal when
    /// it meets one). Anything else is left as it is.
    private func decimal(_ node: Node) throws(SharkError) -> Node {
        guard node.kind == .number else { return node }
        var converted = node
        converted.kind = .decimal
        if case .value(let value) = node.expression {
            let decimal: Decimal?
            switch value {
            case .integer(let integer): decimal = Decimal(integer)
            case .real(let real):
                let text = node.numberText ?? "\(real)"
                let exact = ExactDecimal(plainText: text)
                decimal = exact.flatMap { try? $0.rounded() }
                guard let decimal, exact?.normalized == ExactDecimal(decimal).normalized else {
                    throw failure(
                        "a decimal number a Decimal holds exactly (38 digits)", found: text, offset: node.offset)
                }
            default: decimal = nil
            }
            guard let decimal else { return node }
            converted.expression = .value(.text(DecimalText.encode(decimal)))
            return converted
        }
        converted.expression = .arithmetic(.add, node.expression, .value(.text(DecimalText.encode(0))))
        return converted
    }

    /// Two sides of a comparison made comparable: a decimal against a number compares as
    /// decimals; a literal against a `Float` property is that `Float`, as a typed predicate
    /// compares it.
    private func comparable(_ node: Node, with other: Node) throws(SharkError) -> Node {
        if other.kind == .decimal && node.kind == .number { return try decimal(node) }
        // Text that spells a number, against a decimal: that number (`amount = '0.001'`).
        if other.kind == .decimal, node.kind == .text, case .value(.text(let text)) = node.expression,
            let exact = ExactDecimal(plainText: text.trimmingCharacters(in: .whitespaces)),
            let decimal = try? exact.rounded(), exact.normalized == ExactDecimal(decimal).normalized
        {
            var converted = node
            converted.expression = .value(.text(DecimalText.encode(decimal)))
            converted.kind = .decimal
            return converted
        }
        if other.column?.bitWidth == 32, other.column?.type == .real, case .value(.real(let real)) = node.expression {
            var converted = node
            converted.expression = .value(.real(Double(Float(real))))
            return converted
        }
        return node
    }

    private static let comparisonOperators: [String: ComparisonOperator] = [
        "=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual, "<": .less, "<=": .lessOrEqual,
        ">": .greater, ">=": .greaterOrEqual,
    ]

    /// `lhs op rhs`, with `= NULL` read as `IS NULL` and `!= NULL` as `IS NOT NULL`.
    private func compare(_ lhs: Node, _ op: ComparisonOperator, _ rhs: Node) throws(SharkError) -> Node {
        let lhs = try comparable(try typed(lhs, comparedWith: rhs), with: rhs)
        let rhs = try comparable(try typed(rhs, comparedWith: lhs), with: lhs)
        func isNull(_ node: Node) -> Bool { node.expression == .value(.null) }
        if op == .equal || op == .notEqual, isNull(lhs) || isNull(rhs) {
            let subject = isNull(rhs) ? lhs : rhs
            let test = try node(.isNull(subject.expression), over: [subject], offset: lhs.offset)
            return op == .equal ? test : try node(.not(test.expression), over: [test], offset: lhs.offset)
        }
        return try node(.comparison(op, lhs.expression, rhs.expression), over: [lhs, rhs], offset: lhs.offset)
    }

    /// The values after `IN`: `(v, …)` of literals and arguments (array arguments spread),
    /// or one array argument without parentheses.
    private mutating func valueList() throws(SharkError) -> [Node] {
        if case .placeholder = current.kind { return try placeholderValues() }
        try expectSymbol("(", "( or an array argument after IN")
        var values: [Node] = []
        if acceptSymbol(")") { return values }
        repeat {
            if case .placeholder = current.kind {
                values += try placeholderValues()
                continue
            }
            let item = try unary()
            guard case .value = item.expression else {
                throw failure(
                    "a literal or an argument in the IN list", found: "an expression", offset: item.offset)
            }
            values.append(item)
        } while acceptSymbol(",")
        try expectSymbol(")", "',' or ')' to close the IN list")
        return values
    }

    /// The values of the argument at the current placeholder: one, or an array's elements.
    private mutating func placeholderValues() throws(SharkError) -> [Node] {
        let offset = current.offset
        switch try argument() {
        case .value(let value):
            return [Node(expression: .value(value), depth: 1, offset: offset, kind: Kind(of: value))]
        case .decimal(let value): return [Node(expression: .value(value), depth: 1, offset: offset, kind: .decimal)]
        case .list(let values): return values.map { Node(expression: .value($0), depth: 1, offset: offset) }
        case .text(let text): return [Self.textArgumentNode(text, offset: offset)]
        }
    }

    /// An argument given as text, as a value of its own until it meets a property.
    private static func textArgumentNode(_ text: String, offset: Int) -> Node {
        let value = TextArgument.inferredValue(of: text)
        return Node(
            expression: .value(value), depth: 1, offset: offset, argumentText: text, kind: Kind(of: value))
    }

    /// `node`, when it is an argument given as text, read as the type of the property
    /// `other` reads.
    private func typed(_ node: Node, comparedWith other: Node) throws(SharkError) -> Node {
        guard let text = node.argumentText, let column = other.column else { return node }
        guard let value = TextArgument.value(of: text, for: column) else {
            throw failure(
                TextArgument.expectation(for: column), found: Self.describe(Token(kind: .string(text), offset: 0)),
                offset: node.offset)
        }
        var typed = node
        typed.expression = .value(value)
        typed.argumentText = nil
        typed.kind = Kind(of: column)
        return typed
    }

    /// `a + b - …`, left to right.
    mutating func additive() throws(SharkError) -> Node {
        var lhs = try multiplicative()
        while case .symbol(let symbol) = current.kind, symbol == "+" || symbol == "-" {
            advance()
            let rhs = try multiplicative()
            lhs = try arithmetic(symbol == "+" ? .add : .subtract, lhs, rhs, at: lhs.offset)
        }
        return lhs
    }

    /// `a * b / c % …`, left to right.
    private mutating func multiplicative() throws(SharkError) -> Node {
        var lhs = try unary()
        while case .symbol(let symbol) = current.kind, let op = Self.multiplicativeOperators[symbol] {
            advance()
            let rhs = try unary()
            lhs = try arithmetic(op, lhs, rhs, at: lhs.offset)
        }
        return lhs
    }

    private static let multiplicativeOperators: [String: ArithmeticOperator] = [
        "*": .multiply, "/": .divide, "%": .remainder,
    ]

    /// `-a`, `+a`; a negative number literal stays a literal.
    private mutating func unary() throws(SharkError) -> Node {
        let start = current
        if acceptSymbol("+") { return try nested(at: start) { parse throws(SharkError) in try parse.unary() } }
        guard acceptSymbol("-") else { return try primary() }
        if case .number(let digits) = current.kind {
            let literal = try number(digits, negated: true, at: start)
            advance()
            return Node(expression: .value(literal), depth: 1, offset: start.offset, numberText: "-" + digits)
        }
        let operand = try nested(at: start) { parse throws(SharkError) in try parse.unary() }
        // `-x` is `-1 * x`: SQLite's negation for every storage class, -0.0 included.
        let minusOne = Node(expression: .value(.integer(-1)), depth: 1, offset: start.offset, numberText: "-1")
        return try arithmetic(.multiply, minusOne, operand, at: start.offset)
    }

    /// A literal, an argument, a property, a function call or a parenthesized predicate.
    private mutating func primary() throws(SharkError) -> Node {
        let token = current
        func leaf(_ value: Value) -> Node {
            Node(expression: .value(value), depth: 1, offset: token.offset, kind: Kind(of: value))
        }
        switch token.kind {
        case .number(let digits):
            let value = try number(digits, negated: false, at: token)
            advance()
            var literal = leaf(value)
            literal.numberText = digits
            return literal
        case .string(let string):
            advance()
            return leaf(.text(string))
        case .placeholder:
            switch try argument() {
            case .value(let value): return leaf(value)
            case .decimal(let value):
                var argument = leaf(value)
                argument.kind = .decimal
                return argument
            case .text(let text): return Self.textArgumentNode(text, offset: token.offset)
            case .list:
                throw failure("a single value (an array argument is only a list after IN)", at: token)
            }
        case .symbol("("):
            advance()
            let inner = try nested(at: token) { parse throws(SharkError) in try parse.disjunction() }
            try expectSymbol(")", "')' to close the '(' at offset \(token.offset)")
            return inner
        case .word(let word, let quoted):
            if !quoted {
                switch word.uppercased() {
                case "NULL":
                    advance()
                    return leaf(.null)
                case "TRUE":
                    advance()
                    return leaf(.integer(1))
                case "FALSE":
                    advance()
                    return leaf(.integer(0))
                default: break
                }
                if Self.keywords.contains(word.uppercased()) {
                    throw failure("a value, a property or '('", at: token)
                }
            }
            advance()
            if !quoted, acceptSymbol("(") { return try call(word, at: token) }
            return try path(startingWith: word, at: token)
        default:
            throw failure("a value, a property or '('", at: token)
        }
    }

    /// `function(arguments…)`, its name and argument count checked.
    private mutating func call(_ name: String, at token: Token) throws(SharkError) -> Node {
        guard let function = ScalarFunction(rawValue: name.lowercased()) else {
            throw failure(
                "a function (" + ScalarFunction.allCases.map(\.rawValue).joined(separator: ", ") + ")", at: token)
        }
        var operands: [Node] = []
        if !acceptSymbol(")") {
            repeat {
                operands.append(try nested(at: token) { parse throws(SharkError) in try parse.disjunction() })
            } while acceptSymbol(",")
            try expectSymbol(")", "',' or ')' to close the call of \(function.rawValue)")
        }
        guard function.arity.contains(operands.count) else {
            throw failure(
                "\(function.rawValue) with \(function.arityDescription)", found: "\(operands.count) argument(s)",
                offset: token.offset)
        }
        let kind: Kind
        switch function {
        case .lower, .upper, .length:
            try refuseDecimal(operands[0], for: function.rawValue)
            kind = function == .length ? .number : .text
        case .abs:
            if operands[0].kind == .text || operands[0].kind == .blob {
                throw failure("a number for abs", found: "text", offset: operands[0].offset)
            }
            kind = operands[0].kind
        case .coalesce:
            // One kind for all: a decimal among numbers makes them decimals.
            if operands.contains(where: { $0.kind == .decimal }) {
                for index in operands.indices { operands[index] = try decimal(operands[index]) }
                kind = .decimal
            } else {
                kind = operands.first { $0.kind != .unknown }?.kind ?? .unknown
            }
        }
        var result = try node(.function(function, operands.map(\.expression)), over: operands, offset: token.offset)
        result.kind = kind
        return result
    }

    /// Text functions and LIKE read text; a decimal's stored text is not what it means.
    private func refuseDecimal(_ node: Node, for what: String) throws(SharkError) {
        guard node.kind == .decimal else { return }
        throw failure("text for \(what)", found: "a decimal number", offset: node.offset)
    }

    /// A property: a name, or dotted names through relationships (`department.location.name`),
    /// each step a to-one relationship of the entity before it.
    private mutating func path(startingWith first: String, at token: Token) throws(SharkError) -> Node {
        var names = [(first, token)]
        while acceptSymbol(".") {
            guard case .word(let name, _) = current.kind else { throw failure("a property name after '.'") }
            names.append((name, current))
            advance()
        }
        var entity = schema
        var steps: [RelationshipStep] = []
        for (name, token) in names.dropLast() {
            guard let column = column(named: name, in: entity),
                let relationship = entity.columns[entity.columnIndex(named: column)!].relationship
            else {
                throw failure("a relationship of \(entity.name) before '.'", at: token)
            }
            guard let target = parser.relatedSchema(relationship.target) else {
                throw failure(
                    "a relationship to a model this store has prepared or recorded",
                    found: "\"\(name)\" (to \(relationship.target))", offset: token.offset)
            }
            steps.append(RelationshipStep(column: column, entity: target.name, key: target.key.name))
            entity = target
        }
        let (last, lastToken) = names[names.count - 1]
        guard let column = column(named: last, in: entity) else {
            throw failure("a property of \(entity.name)", at: lastToken)
        }
        var expression = QueryExpression.column(column)
        for step in steps.reversed() { expression = .path(step, expression) }
        let depth = expression.nestingDepth
        guard depth <= QueryExpression.maximumNestingDepth else {
            throw failure("a shorter path", found: "\(steps.count) relationships", offset: token.offset)
        }
        let schema = entity.columnIndex(named: column).map { entity.columns[$0] }
        return Node(
            expression: expression, depth: depth, offset: token.offset, column: schema,
            kind: schema.map(Kind.init(of:)) ?? .unknown)
    }

    /// The column of `entity` named `name`: exactly, or else regardless of case when only one
    /// matches.
    private func column(named name: String, in entity: EntitySchema) -> String? {
        if entity.columnIndex(named: name) != nil { return name }
        let folded = name.lowercased()
        let matches = entity.columns.filter { $0.name.lowercased() == folded }
        return matches.count == 1 ? matches[0].name : nil
    }

    /// A number literal: an integer while it fits 64 bits (`-9223372036854775808` included),
    /// a real otherwise, as SQLite reads them; a real too large for a Double is refused.
    private func number(_ digits: String, negated: Bool, at token: Token) throws(SharkError) -> Value {
        let signed = negated ? "-" + digits : digits
        if !digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let integer = Int64(signed) {
            return .integer(integer)
        }
        guard let real = Double(signed), real.isFinite else {
            throw failure("a number within the range of a Double", at: token)
        }
        return .real(real)
    }

    /// The next argument, for the placeholder at the current token.
    private mutating func argument() throws(SharkError) -> Argument {
        let token = current
        guard argumentsUsed < arguments.count else {
            throw failure(
                "an argument for \(Self.describe(token))", found: "\(arguments.count) given", offset: token.offset)
        }
        let argument = arguments[argumentsUsed]
        argumentsUsed += 1
        advance()
        if let text = argument as? TextArgument { return .text(text.text) }
        do {
            if !(argument is String), !(argument is Substring), !(argument is Data),
                let collection = argument as? any Collection
            {
                var values: [Value] = []
                for element in collection { values.append(try storedValue(element)) }
                return .list(values)
            }
            if argument is Decimal { return .decimal(try storedValue(argument)) }
            return .value(try storedValue(argument))
        } catch {
            throw failure(
                "an argument of a type SharkORM can store", found: "\(type(of: argument))", offset: token.offset)
        }
    }
}
