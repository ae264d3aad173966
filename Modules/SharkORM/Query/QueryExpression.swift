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
    /// Every operand is true. Chains of `&&` are kept as one flat list, so a predicate built
    /// term by term in a loop nests no deeper than its first term.
    case and([QueryExpression])
    /// At least one operand is true; flat like ``and(_:)``.
    case or([QueryExpression])
    case not(QueryExpression)
    /// `expression IS NULL`.
    case isNull(QueryExpression)
    /// `expression IN (values…)`.
    case isIn(QueryExpression, [Value])
    /// `expression LIKE pattern`: `%` and `_` wildcards, case-insensitive for ASCII letters.
    case like(QueryExpression, QueryExpression)
    /// `expression BETWEEN lower AND upper`, bounds included.
    case between(QueryExpression, QueryExpression, QueryExpression)
    /// A scalar function of its arguments, `lower(name)`; see ``ScalarFunction`` for the rules
    /// and how many arguments each takes.
    case function(ScalarFunction, [QueryExpression])
    /// `expression IN (SELECT column FROM entity WHERE …)`: with `IN`'s rules, the subquery's
    /// values standing for the list.
    case isInSubquery(QueryExpression, Subquery)
    /// The value of an expression over the row a to-one relationship refers to:
    /// `department.name`. NULL when the relationship is NULL or its row is missing, as a
    /// LEFT JOIN gives; paths through several relationships nest.
    case path(RelationshipStep, QueryExpression)
}

/// One step of a ``QueryExpression/path(_:_:)``: from a relationship column to the row of
/// `entity` whose `key` it holds.
public struct RelationshipStep: Sendable, Hashable {
    /// The relationship column of the row the path starts from.
    public var column: String
    /// The related entity.
    public var entity: String
    /// The related entity's key column.
    public var key: String

    public init(column: String, entity: String, key: String) {
        self.column = column
        self.entity = entity
        self.key = key
    }
}

/// The values of one column of another entity's matching rows, for ``QueryExpression/isInSubquery(_:_:)``.
///
/// ```swift
/// let sales = Subquery(entity: "Department", column: "id", predicate: .comparison(.equal, .column("name"), .value("Sales")))
/// let inSales = QueryExpression.isInSubquery(.column("department"), sales)
/// ```
public struct Subquery: Sendable, Hashable {
    /// The entity queried.
    public var entity: String
    /// The column whose values the subquery gives.
    public var column: String
    /// The rows of `entity` that count; all of them when nil.
    public var predicate: QueryExpression?

    public init(entity: String, column: String, predicate: QueryExpression? = nil) {
        self.entity = entity
        self.column = column
        self.predicate = predicate
    }
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
        case .and(let operands): return "(" + operands.map(\.description).joined(separator: " AND ") + ")"
        case .or(let operands): return "(" + operands.map(\.description).joined(separator: " OR ") + ")"
        case .not(let operand): return "(NOT \(operand))"
        case .isNull(let operand): return "(\(operand) IS NULL)"
        case .isIn(let operand, let values):
            return "(\(operand) IN (\(values.map(\.description).joined(separator: ", "))))"
        case .like(let operand, let pattern): return "(\(operand) LIKE \(pattern))"
        case .between(let operand, let lower, let upper): return "(\(operand) BETWEEN \(lower) AND \(upper))"
        case .function(let function, let arguments):
            return function.rawValue + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        case .path(let step, let expression): return step.column + "." + expression.description
        case .isInSubquery(let operand, let subquery):
            let filter = subquery.predicate.map { " WHERE \($0)" } ?? ""
            return "(\(operand) IN (SELECT \(subquery.column) FROM \(subquery.entity)\(filter)))"
        }
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
@_spi(SharkDriver) public struct EntityQuery: Sendable, Hashable {
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
    /// The columns to read, by schema position, when not all: the others come back NULL (a
    /// lightweight fetch). The key is always read.
    public var columns: ColumnSet?

    public init(entity: String) { self.entity = entity }

    /// Whether the rows must come back in a defined order: the ordering's, then the key's.
    ///
    /// True for an ordered query, and for a window of an unordered one (a limit or an offset),
    /// so that `limit(10)` then `offset(10).limit(10)` never skip or repeat a row. An unordered
    /// query without a window may return its rows in any order: sorting by key costs the
    /// engine work (SQLite adds a sort, or walks the table instead of an index) that a caller
    /// who did not ask for an order should not pay for.
    public var requiresOrder: Bool {
        !ordering.isEmpty || limit != nil || offset != nil
    }
}
