extension QueryExpression {
    /// How deep a predicate may nest. Chains of `&&` and `||` do not count towards it (they are
    /// flat lists), so only genuinely nested predicates — `!(!(!…))`, alternating `(a && (b ||
    /// (c && …)))` — reach it. Every driver evaluates or compiles an expression by walking it,
    /// and SQLite refuses expression trees deeper than 1,000: the limit keeps all of them far
    /// from a stack overflow, and refuses the same predicates on every driver.
    public static let maximumNestingDepth = 100

    /// `lhs AND rhs`, appending to an existing conjunction instead of nesting inside it.
    ///
    /// ```swift
    /// let both = QueryExpression.conjunction(.and([a, b]), c)   // .and([a, b, c])
    /// ```
    public static func conjunction(_ lhs: QueryExpression, _ rhs: QueryExpression) -> QueryExpression {
        switch (lhs, rhs) {
        case (.and(let left), .and(let right)): return .and(left + right)
        case (.and(let left), _): return .and(left + [rhs])
        case (_, .and(let right)): return .and([lhs] + right)
        default: return .and([lhs, rhs])
        }
    }

    /// `lhs OR rhs`, appending to an existing disjunction instead of nesting inside it.
    public static func disjunction(_ lhs: QueryExpression, _ rhs: QueryExpression) -> QueryExpression {
        switch (lhs, rhs) {
        case (.or(let left), .or(let right)): return .or(left + right)
        case (.or(let left), _): return .or(left + [rhs])
        case (_, .or(let right)): return .or([lhs] + right)
        default: return .or([lhs, rhs])
        }
    }

    /// The operands of this node, in order (none for columns and values).
    public var operands: [QueryExpression] {
        switch self {
        case .column, .value: return []
        case .comparison(_, let lhs, let rhs), .arithmetic(_, let lhs, let rhs), .like(let lhs, let rhs):
            return [lhs, rhs]
        case .and(let operands), .or(let operands): return operands
        case .not(let operand), .isNull(let operand), .isIn(let operand, _): return [operand]
        case .between(let operand, let lower, let upper): return [operand, lower, upper]
        }
    }

    /// The number of levels of the tree: 1 for a column or a value.
    ///
    /// Measured with an explicit stack rather than by recursion, so that even an expression
    /// built by hand far deeper than ``maximumNestingDepth`` is measured without overflowing
    /// the stack.
    public var nestingDepth: Int {
        var deepest = 0
        var pending: [(QueryExpression, Int)] = [(self, 1)]
        while let (node, depth) = pending.popLast() {
            deepest = max(deepest, depth)
            for operand in node.operands { pending.append((operand, depth + 1)) }
        }
        return deepest
    }

    /// The error for an expression nested deeper than ``maximumNestingDepth``, or nil.
    func nestingProblem(depth: Int) -> SharkError? {
        guard depth > Self.maximumNestingDepth else { return nil }
        return SharkError.invalidQuery(
            "the predicate nests \(depth) levels deep, more than the \(Self.maximumNestingDepth) every driver "
                + "accepts; chains of && and || do not nest, so build long conditions as chains or with isIn")
    }
}
