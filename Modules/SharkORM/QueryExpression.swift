/// A node of the query AST that every driver evaluates: SQL drivers compile it to SQL with
/// bound parameters, the memory engine evaluates it directly.
///
/// Build expressions with typed key-path predicates (see ``QueryPredicate``) rather than by hand:
///
/// ```swift
/// let adults: QueryPredicate<Person> = \.age >= 18 && \.name != ""
/// print(adults.expression)   // ((age >= 18) AND (name != ''))
/// ```
public indirect enum QueryExpression: Sendable, Hashable {
    /// A column of the queried entity.
    case column(String)
    /// A constant, always bound as a parameter by SQL drivers, never spliced into SQL text.
    case value(Value)
    /// `lhs op rhs` with SQL's three-valued logic: a comparison with NULL is unknown.
    case comparison(ComparisonOperator, QueryExpression, QueryExpression)
    /// `lhs op rhs` on numbers.
    case arithmetic(ArithmeticOperator, QueryExpression, QueryExpression)
    case and(QueryExpression, QueryExpression)
    case or(QueryExpression, QueryExpression)
    case not(QueryExpression)
    /// `expression IS NULL`.
    case isNull(QueryExpression)
    /// `expression IN (values…)`.
    case isIn(QueryExpression, [Value])
    /// `expression LIKE pattern`: `%` and `_` wildcards, case-insensitive for ASCII letters.
    case like(QueryExpression, QueryExpression)
    /// `expression BETWEEN lower AND upper`, bounds included.
    case between(QueryExpression, QueryExpression, QueryExpression)
}

/// A comparison operator.
public enum ComparisonOperator: String, Sendable, Hashable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// An arithmetic operator.
public enum ArithmeticOperator: String, Sendable, Hashable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case remainder = "%"
}

extension QueryExpression: CustomStringConvertible {
    public var description: String {
        switch self {
        case .column(let name): return name
        case .value(let value): return value.description
        case .comparison(let op, let lhs, let rhs): return "(\(lhs) \(op.rawValue) \(rhs))"
        case .arithmetic(let op, let lhs, let rhs): return "(\(lhs) \(op.rawValue) \(rhs))"
        case .and(let lhs, let rhs): return "(\(lhs) AND \(rhs))"
        case .or(let lhs, let rhs): return "(\(lhs) OR \(rhs))"
        case .not(let operand): return "(NOT \(operand))"
        case .isNull(let operand): return "(\(operand) IS NULL)"
        case .isIn(let operand, let values):
            return "(\(operand) IN (\(values.map(\.description).joined(separator: ", "))))"
        case .like(let operand, let pattern): return "(\(operand) LIKE \(pattern))"
        case .between(let operand, let lower, let upper): return "(\(operand) BETWEEN \(lower) AND \(upper))"
        }
    }
}

extension QueryExpression {
    /// The expression as SQL, with a `?` for every value, appended in order to `arguments`.
    ///
    /// SQL drivers compile predicates with it (values are always bound, never spliced into
    /// the text); other drivers use it to describe what they ran in traces.
    ///
    /// ```swift
    /// var arguments: [Value] = []
    /// let sql = (\Person.age >= 18).expression.sql(arguments: &arguments)
    /// // sql == "(\"age\" >= ?)", arguments == [.integer(18)]
    /// ```
    public func sql(arguments: inout [Value]) -> String {
        var text = ""
        appendSQL(to: &text, arguments: &arguments)
        return text
    }

    /// Appends the expression's SQL to `text`: one growing string rather than a string per
    /// node, since this runs for every query a SQL driver executes.
    public func appendSQL(to text: inout String, arguments: inout [Value]) {
        switch self {
        case .column(let name):
            text += "\""
            text += name.contains("\"") ? name.replacingOccurrences(of: "\"", with: "\"\"") : name
            text += "\""
        case .value(let value):
            arguments.append(value)
            text += "?"
        case .comparison(let op, let lhs, let rhs):
            binary(op.rawValue, lhs, rhs, &text, &arguments)
        case .arithmetic(let op, let lhs, let rhs):
            binary(op.rawValue, lhs, rhs, &text, &arguments)
        case .and(let lhs, let rhs):
            binary("AND", lhs, rhs, &text, &arguments)
        case .or(let lhs, let rhs):
            binary("OR", lhs, rhs, &text, &arguments)
        case .not(let operand):
            text += "(NOT "
            operand.appendSQL(to: &text, arguments: &arguments)
            text += ")"
        case .isNull(let operand):
            text += "("
            operand.appendSQL(to: &text, arguments: &arguments)
            text += " IS NULL)"
        case .isIn(let operand, let values):
            // `x IN ()` is false for every x, NULL included: say so plainly.
            guard !values.isEmpty else {
                text += "0"
                return
            }
            text += "("
            operand.appendSQL(to: &text, arguments: &arguments)
            text += " IN ("
            for index in values.indices { text += index == 0 ? "?" : ", ?" }
            text += "))"
            arguments += values
        case .like(let operand, let pattern):
            binary("LIKE", operand, pattern, &text, &arguments)
        case .between(let operand, let lower, let upper):
            text += "("
            operand.appendSQL(to: &text, arguments: &arguments)
            text += " BETWEEN "
            lower.appendSQL(to: &text, arguments: &arguments)
            text += " AND "
            upper.appendSQL(to: &text, arguments: &arguments)
            text += ")"
        }
    }

    private func binary(
        _ op: String, _ lhs: QueryExpression, _ rhs: QueryExpression, _ text: inout String, _ arguments: inout [Value]
    ) {
        text += "("
        lhs.appendSQL(to: &text, arguments: &arguments)
        text += " "
        text += op
        text += " "
        rhs.appendSQL(to: &text, arguments: &arguments)
        text += ")"
    }
}

/// One ordering term of a query.
public struct Ordering: Sendable, Hashable {
    public var expression: QueryExpression
    public var ascending: Bool

    public init(_ expression: QueryExpression, ascending: Bool = true) {
        self.expression = expression
        self.ascending = ascending
    }
}

/// A whole query against one entity, as the drivers receive it.
public struct QueryDescription: Sendable, Hashable {
    /// The queried entity.
    public var entity: String
    /// Rows must satisfy this, when set.
    public var predicate: QueryExpression?
    /// Sort terms, most significant first. Rows that tie on every term come back in key order,
    /// on every driver.
    public var ordering: [Ordering] = []
    /// At most this many rows.
    public var limit: Int?
    /// Skip this many rows first.
    public var offset: Int?

    public init(entity: String) { self.entity = entity }
}
