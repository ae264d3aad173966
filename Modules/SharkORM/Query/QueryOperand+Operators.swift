/// Operators that build ``QueryOperand``s and compare them: arithmetic on properties and
/// constants, and comparisons between two properties or computed values.
///
/// ```swift
/// let query = try Person.query(in: store)
///     .where(\.age * 12 + \.months > 400)          // arithmetic on columns
///     .where(\.salary >= \.bonus)                   // column against column
///     .where(.lower(\.name) != "admin")             // a function of a column
/// ```
///
/// Comparisons follow the same SQL rules as ``QueryPredicate``'s: comparing with nil means
/// `IS NULL` for `==` and `IS NOT NULL` for `!=`, and any other comparison involving a NULL
/// is false.

// MARK: +

/// The sum of two numeric operands, computed per row.
public func + <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.add, QueryOperand(lhs), QueryOperand(rhs))
}

/// The sum of two numeric operands, computed per row.
public func + <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: V) -> QueryOperand<Root, V> {
    .arithmetic(.add, QueryOperand(lhs), .constant(rhs))
}

/// The sum of two numeric operands, computed per row.
public func + <Root: Model, V: Numeric>(lhs: V, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.add, .constant(lhs), QueryOperand(rhs))
}

/// The sum of two numeric operands, computed per row.
public func + <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V>
{
    .arithmetic(.add, lhs, rhs)
}

/// The sum of two numeric operands, computed per row.
public func + <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.add, lhs, QueryOperand(rhs))
}

/// The sum of two numeric operands, computed per row.
public func + <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.add, QueryOperand(lhs), rhs)
}

/// The sum of two numeric operands, computed per row.
public func + <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryOperand<Root, V> {
    .arithmetic(.add, lhs, .constant(rhs))
}

/// The sum of two numeric operands, computed per row.
public func + <Root: Model, V: Numeric>(lhs: V, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.add, .constant(lhs), rhs)
}

// MARK: -

/// The difference of two numeric operands, computed per row.
public func - <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.subtract, QueryOperand(lhs), QueryOperand(rhs))
}

/// The difference of two numeric operands, computed per row.
public func - <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: V) -> QueryOperand<Root, V> {
    .arithmetic(.subtract, QueryOperand(lhs), .constant(rhs))
}

/// The difference of two numeric operands, computed per row.
public func - <Root: Model, V: Numeric>(lhs: V, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.subtract, .constant(lhs), QueryOperand(rhs))
}

/// The difference of two numeric operands, computed per row.
public func - <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V>
{
    .arithmetic(.subtract, lhs, rhs)
}

/// The difference of two numeric operands, computed per row.
public func - <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.subtract, lhs, QueryOperand(rhs))
}

/// The difference of two numeric operands, computed per row.
public func - <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.subtract, QueryOperand(lhs), rhs)
}

/// The difference of two numeric operands, computed per row.
public func - <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryOperand<Root, V> {
    .arithmetic(.subtract, lhs, .constant(rhs))
}

/// The difference of two numeric operands, computed per row.
public func - <Root: Model, V: Numeric>(lhs: V, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.subtract, .constant(lhs), rhs)
}

// MARK: *

/// The product of two numeric operands, computed per row.
public func * <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.multiply, QueryOperand(lhs), QueryOperand(rhs))
}

/// The product of two numeric operands, computed per row.
public func * <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: V) -> QueryOperand<Root, V> {
    .arithmetic(.multiply, QueryOperand(lhs), .constant(rhs))
}

/// The product of two numeric operands, computed per row.
public func * <Root: Model, V: Numeric>(lhs: V, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.multiply, .constant(lhs), QueryOperand(rhs))
}

/// The product of two numeric operands, computed per row.
public func * <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V>
{
    .arithmetic(.multiply, lhs, rhs)
}

/// The product of two numeric operands, computed per row.
public func * <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.multiply, lhs, QueryOperand(rhs))
}

/// The product of two numeric operands, computed per row.
public func * <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.multiply, QueryOperand(lhs), rhs)
}

/// The product of two numeric operands, computed per row.
public func * <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryOperand<Root, V> {
    .arithmetic(.multiply, lhs, .constant(rhs))
}

/// The product of two numeric operands, computed per row.
public func * <Root: Model, V: Numeric>(lhs: V, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.multiply, .constant(lhs), rhs)
}

// MARK: /

/// The quotient (integer division truncates; by zero is nil) of two numeric operands, computed per row.
public func / <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.divide, QueryOperand(lhs), QueryOperand(rhs))
}

/// The quotient (integer division truncates; by zero is nil) of two numeric operands, computed per row.
public func / <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: V) -> QueryOperand<Root, V> {
    .arithmetic(.divide, QueryOperand(lhs), .constant(rhs))
}

/// The quotient (integer division truncates; by zero is nil) of two numeric operands, computed per row.
public func / <Root: Model, V: Numeric>(lhs: V, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.divide, .constant(lhs), QueryOperand(rhs))
}

/// The quotient (integer division truncates; by zero is nil) of two numeric operands, computed per row.
public func / <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V>
{
    .arithmetic(.divide, lhs, rhs)
}

/// The quotient (integer division truncates; by zero is nil) of two numeric operands, computed per row.
public func / <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.divide, lhs, QueryOperand(rhs))
}

/// The quotient (integer division truncates; by zero is nil) of two numeric operands, computed per row.
public func / <Root: Model, V: Numeric>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.divide, QueryOperand(lhs), rhs)
}

/// The quotient (integer division truncates; by zero is nil) of two numeric operands, computed per row.
public func / <Root: Model, V: Numeric>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryOperand<Root, V> {
    .arithmetic(.divide, lhs, .constant(rhs))
}

/// The quotient (integer division truncates; by zero is nil) of two numeric operands, computed per row.
public func / <Root: Model, V: Numeric>(lhs: V, rhs: QueryOperand<Root, V>) -> QueryOperand<Root, V> {
    .arithmetic(.divide, .constant(lhs), rhs)
}

// MARK: ==

/// `lhs == rhs` for each row, where either side is computed or both are properties.
public func == <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .comparing(lhs, .equal, .constant(rhs))
}

/// `lhs == rhs` for each row, where either side is computed or both are properties.
public func == <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .equal, rhs)
}

/// `lhs == rhs` for each row, where either side is computed or both are properties.
public func == <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .equal, QueryOperand(rhs))
}

/// `lhs == rhs` for each row, where either side is computed or both are properties.
public func == <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .equal, rhs)
}

/// `lhs == rhs` for each row, where either side is computed or both are properties.
public func == <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .equal, QueryOperand(rhs))
}

// MARK: !=

/// `lhs != rhs` for each row, where either side is computed or both are properties.
public func != <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .comparing(lhs, .notEqual, .constant(rhs))
}

/// `lhs != rhs` for each row, where either side is computed or both are properties.
public func != <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .notEqual, rhs)
}

/// `lhs != rhs` for each row, where either side is computed or both are properties.
public func != <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .notEqual, QueryOperand(rhs))
}

/// `lhs != rhs` for each row, where either side is computed or both are properties.
public func != <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .notEqual, rhs)
}

/// `lhs != rhs` for each row, where either side is computed or both are properties.
public func != <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .notEqual, QueryOperand(rhs))
}

// MARK: <

/// `lhs < rhs` for each row, where either side is computed or both are properties.
public func < <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .comparing(lhs, .less, .constant(rhs))
}

/// `lhs < rhs` for each row, where either side is computed or both are properties.
public func < <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .less, rhs)
}

/// `lhs < rhs` for each row, where either side is computed or both are properties.
public func < <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .less, QueryOperand(rhs))
}

/// `lhs < rhs` for each row, where either side is computed or both are properties.
public func < <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .less, rhs)
}

/// `lhs < rhs` for each row, where either side is computed or both are properties.
public func < <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .less, QueryOperand(rhs))
}

// MARK: <=

/// `lhs <= rhs` for each row, where either side is computed or both are properties.
public func <= <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .comparing(lhs, .lessOrEqual, .constant(rhs))
}

/// `lhs <= rhs` for each row, where either side is computed or both are properties.
public func <= <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .lessOrEqual, rhs)
}

/// `lhs <= rhs` for each row, where either side is computed or both are properties.
public func <= <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .lessOrEqual, QueryOperand(rhs))
}

/// `lhs <= rhs` for each row, where either side is computed or both are properties.
public func <= <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .lessOrEqual, rhs)
}

/// `lhs <= rhs` for each row, where either side is computed or both are properties.
public func <= <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .lessOrEqual, QueryOperand(rhs))
}

// MARK: >

/// `lhs > rhs` for each row, where either side is computed or both are properties.
public func > <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .comparing(lhs, .greater, .constant(rhs))
}

/// `lhs > rhs` for each row, where either side is computed or both are properties.
public func > <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .greater, rhs)
}

/// `lhs > rhs` for each row, where either side is computed or both are properties.
public func > <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .greater, QueryOperand(rhs))
}

/// `lhs > rhs` for each row, where either side is computed or both are properties.
public func > <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .greater, rhs)
}

/// `lhs > rhs` for each row, where either side is computed or both are properties.
public func > <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .greater, QueryOperand(rhs))
}

// MARK: >=

/// `lhs >= rhs` for each row, where either side is computed or both are properties.
public func >= <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .comparing(lhs, .greaterOrEqual, .constant(rhs))
}

/// `lhs >= rhs` for each row, where either side is computed or both are properties.
public func >= <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .greaterOrEqual, rhs)
}

/// `lhs >= rhs` for each row, where either side is computed or both are properties.
public func >= <Root: Model, V>(lhs: QueryOperand<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(lhs, .greaterOrEqual, QueryOperand(rhs))
}

/// `lhs >= rhs` for each row, where either side is computed or both are properties.
public func >= <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: QueryOperand<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .greaterOrEqual, rhs)
}

/// `lhs >= rhs` for each row, where either side is computed or both are properties.
public func >= <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: KeyPath<Root, V>) -> QueryPredicate<Root> {
    .comparing(QueryOperand(lhs), .greaterOrEqual, QueryOperand(rhs))
}

extension QueryOperand {
    /// `lhs op rhs` on two operands of one type.
    static func arithmetic(_ op: ArithmeticOperator, _ lhs: QueryOperand, _ rhs: QueryOperand) -> QueryOperand {
        QueryOperand(.arithmetic(op, lhs.expression, rhs.expression), problem: lhs.problem ?? rhs.problem)
    }
}

extension QueryPredicate {
    /// `lhs op rhs`; a comparison with a nil constant is `IS [NOT] NULL` for `==` and `!=`,
    /// as with key paths.
    static func comparing<V>(
        _ lhs: QueryOperand<Root, V>, _ op: ComparisonOperator, _ rhs: QueryOperand<Root, V>
    ) -> QueryPredicate {
        let problem = lhs.problem ?? rhs.problem
        let expression: QueryExpression
        switch (op, lhs.expression, rhs.expression) {
        case (.equal, _, .value(.null)) where problem == nil: expression = .isNull(lhs.expression)
        case (.equal, .value(.null), _) where problem == nil: expression = .isNull(rhs.expression)
        case (.notEqual, _, .value(.null)) where problem == nil: expression = .not(.isNull(lhs.expression))
        case (.notEqual, .value(.null), _) where problem == nil: expression = .not(.isNull(rhs.expression))
        default: expression = .comparison(op, lhs.expression, rhs.expression)
        }
        return QueryPredicate(expression, depth: expression.nestingDepth, problem: problem)
    }
}
