@_spi(SharkDriver) import SharkORM

/// Everything a query's SQL text depends on and nothing it binds: the key of the plan cache
/// (see ``EntityStatements/plans``).
///
/// ``QueryCompiler`` binds every value as a parameter, so two queries that differ only in
/// their values render the same text and run the same prepared statement. A query run again
/// with new values (`where(\.age > x)` in a loop) then skips rendering the text, hashing it
/// to find its statement, and preparing it: its shape is hashed instead, and its values are
/// collected in the order the compiler would have bound them.
///
/// What is part of the shape: the statement's kind, every node of the expressions except the
/// values' contents, the length of each `IN` list (one more `?` each), and whether a limit
/// and an offset are present (their values are bound).
struct QueryShape: Hashable {
    /// The statement a query compiles to, with the expression it computes, if any.
    enum Statement: Hashable {
        /// `SELECT` of the columns (all, or a lightweight fetch's).
        case select(ColumnSet?)
        case count
        case aggregate(AggregateFunction, QueryExpression)
        case distinct(QueryExpression)
        case values(QueryExpression)

        var expression: QueryExpression? {
            switch self {
            case .select, .count: nil
            case .aggregate(_, let expression), .distinct(let expression), .values(let expression): expression
            }
        }
    }

    let statement: Statement
    let query: EntityQuery

    static func == (lhs: QueryShape, rhs: QueryShape) -> Bool {
        switch (lhs.statement, rhs.statement) {
        case (.select(let left), .select(let right)): guard left == right else { return false }
        case (.count, .count): break
        case (.aggregate(let left, _), .aggregate(let right, _)): guard left == right else { return false }
        case (.distinct, .distinct), (.values, .values): break
        default: return false
        }
        if let left = lhs.statement.expression, let right = rhs.statement.expression, !left.hasShape(of: right) {
            return false
        }
        let (left, right) = (lhs.query, rhs.query)
        guard (left.limit == nil) == (right.limit == nil), (left.offset == nil) == (right.offset == nil),
            left.ordering.count == right.ordering.count
        else { return false }
        switch (left.predicate, right.predicate) {
        case (nil, nil): break
        case (let left?, let right?): guard left.hasShape(of: right) else { return false }
        default: return false
        }
        for (l, r) in zip(left.ordering, right.ordering)
        where l.ascending != r.ascending || !l.expression.hasShape(of: r.expression) {
            return false
        }
        return true
    }

    func hash(into hasher: inout Hasher) {
        switch statement {
        case .select(let columns):
            hasher.combine(0)
            hasher.combine(columns)
        case .count: hasher.combine(1)
        case .aggregate(let function, _):
            hasher.combine(2)
            hasher.combine(function)
        case .distinct: hasher.combine(3)
        case .values: hasher.combine(4)
        }
        statement.expression?.hashShape(into: &hasher)
        hasher.combine(query.limit == nil)
        hasher.combine(query.offset == nil)
        query.predicate?.hashShape(into: &hasher)
        hasher.combine(query.ordering.count)
        for term in query.ordering {
            hasher.combine(term.ascending)
            term.expression.hashShape(into: &hasher)
        }
    }

    /// The values the compiled text binds, in the order ``QueryCompiler`` binds them: the
    /// computed expression, the predicate, the ordering (when the statement has one), then
    /// LIMIT and OFFSET.
    var arguments: [Value] {
        var values: [Value] = []
        statement.expression?.collectValues(into: &values)
        query.predicate?.collectValues(into: &values)
        var ordered = query.requiresOrder
        switch statement {
        case .count: ordered = false  // a count has no ORDER BY
        case .aggregate, .distinct, .values:
            ordered = query.limit != nil || query.offset != nil  // the ordering matters only for a window
        case .select: break
        }
        if ordered {
            for term in query.ordering { term.expression.collectValues(into: &values) }
        }
        if query.limit != nil || query.offset != nil { values.append(.integer(Int64(query.limit ?? -1))) }
        if let offset = query.offset { values.append(.integer(Int64(offset))) }
        return values
    }
}

extension QueryExpression {
    /// Whether `self` and `other` compile to the same SQL text: the same nodes, values aside.
    fileprivate func hasShape(of other: QueryExpression) -> Bool {
        switch (self, other) {
        case (.column(let left), .column(let right)): return left == right
        case (.value, .value): return true
        case (.comparison(let op, let l1, let r1), .comparison(let op2, let l2, let r2)):
            return op == op2 && l1.hasShape(of: l2) && r1.hasShape(of: r2)
        case (.arithmetic(let op, let l1, let r1), .arithmetic(let op2, let l2, let r2)):
            return op == op2 && l1.hasShape(of: l2) && r1.hasShape(of: r2)
        case (.and(let left), .and(let right)), (.or(let left), .or(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.hasShape(of: $1) }
        case (.not(let left), .not(let right)), (.isNull(let left), .isNull(let right)):
            return left.hasShape(of: right)
        case (.isIn(let left, let leftValues), .isIn(let right, let rightValues)):
            return leftValues.count == rightValues.count && left.hasShape(of: right)
        case (.like(let l1, let r1), .like(let l2, let r2)):
            return l1.hasShape(of: l2) && r1.hasShape(of: r2)
        case (.between(let o1, let l1, let u1), .between(let o2, let l2, let u2)):
            return o1.hasShape(of: o2) && l1.hasShape(of: l2) && u1.hasShape(of: u2)
        case (.function(let f1, let left), .function(let f2, let right)):
            return f1 == f2 && left.count == right.count && zip(left, right).allSatisfy { $0.hasShape(of: $1) }
        case (.isInSubquery(let left, let s1), .isInSubquery(let right, let s2)):
            guard s1.entity == s2.entity, s1.column == s2.column, left.hasShape(of: right) else { return false }
            switch (s1.predicate, s2.predicate) {
            case (nil, nil): return true
            case (let p1?, let p2?): return p1.hasShape(of: p2)
            default: return false
            }
        case (.path(let s1, let left), .path(let s2, let right)):
            return s1 == s2 && left.hasShape(of: right)
        default:
            return false
        }
    }

    /// Hashes what ``hasShape(of:)`` compares.
    fileprivate func hashShape(into hasher: inout Hasher) {
        switch self {
        case .column(let name):
            hasher.combine(0)
            hasher.combine(name)
        case .value: hasher.combine(1)
        case .comparison(let op, let lhs, let rhs):
            hasher.combine(2)
            hasher.combine(op)
            lhs.hashShape(into: &hasher)
            rhs.hashShape(into: &hasher)
        case .arithmetic(let op, let lhs, let rhs):
            hasher.combine(3)
            hasher.combine(op)
            lhs.hashShape(into: &hasher)
            rhs.hashShape(into: &hasher)
        case .and(let operands), .or(let operands):
            if case .and = self { hasher.combine(4) } else { hasher.combine(5) }
            hasher.combine(operands.count)
            for operand in operands { operand.hashShape(into: &hasher) }
        case .not(let operand):
            hasher.combine(6)
            operand.hashShape(into: &hasher)
        case .isNull(let operand):
            hasher.combine(7)
            operand.hashShape(into: &hasher)
        case .isIn(let operand, let values):
            hasher.combine(8)
            hasher.combine(values.count)
            operand.hashShape(into: &hasher)
        case .like(let operand, let pattern):
            hasher.combine(9)
            operand.hashShape(into: &hasher)
            pattern.hashShape(into: &hasher)
        case .between(let operand, let lower, let upper):
            hasher.combine(10)
            operand.hashShape(into: &hasher)
            lower.hashShape(into: &hasher)
            upper.hashShape(into: &hasher)
        case .function(let function, let arguments):
            hasher.combine(11)
            hasher.combine(function)
            hasher.combine(arguments.count)
            for argument in arguments { argument.hashShape(into: &hasher) }
        case .isInSubquery(let operand, let subquery):
            hasher.combine(12)
            hasher.combine(subquery.entity)
            hasher.combine(subquery.column)
            operand.hashShape(into: &hasher)
            subquery.predicate?.hashShape(into: &hasher)
        case .path(let step, let expression):
            hasher.combine(13)
            hasher.combine(step)
            expression.hashShape(into: &hasher)
        }
    }

    /// Appends the values of `self` in the order ``QueryCompiler`` binds them.
    fileprivate func collectValues(into values: inout [Value]) {
        switch self {
        case .column: break
        case .value(let value): values.append(value)
        case .comparison(_, let lhs, let rhs), .arithmetic(_, let lhs, let rhs), .like(let lhs, let rhs):
            lhs.collectValues(into: &values)
            rhs.collectValues(into: &values)
        case .and(let operands), .or(let operands), .function(_, let operands):
            for operand in operands { operand.collectValues(into: &values) }
        case .not(let operand), .isNull(let operand), .path(_, let operand):
            operand.collectValues(into: &values)
        case .isIn(let operand, let list):
            // An empty list compiles to a constant false, without its operand.
            guard !list.isEmpty else { return }
            operand.collectValues(into: &values)
            values.append(contentsOf: list)
        case .between(let operand, let lower, let upper):
            operand.collectValues(into: &values)
            lower.collectValues(into: &values)
            upper.collectValues(into: &values)
        case .isInSubquery(let operand, let subquery):
            operand.collectValues(into: &values)
            subquery.predicate?.collectValues(into: &values)
        }
    }
}
