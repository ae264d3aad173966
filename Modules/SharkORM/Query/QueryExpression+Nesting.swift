extension QueryExpression {
    /// How deep a predicate may nest, in levels (see ``nestingDepth``). Only genuinely nested
    /// predicates reach it — `!(!(!…))`, alternating `(a && (b || (c && …)))` — since chains of
    /// `&&` and `||` are flat lists that cost one level per sixteenfold growth.
    ///
    /// A rule of the query language, the same on every driver, so that a predicate tested on
    /// one runs on all: every predicate within the limit runs on every driver, in every
    /// statement (a filter, an ordering, an aggregate over a window, a subquery), and every
    /// predicate past it is refused, by all alike, when it is built. A driver's engine must
    /// take predicates this deep (the conformance suite runs each construct at the limit).
    ///
    /// Why 24, and why some steps count more than one level: the tightest engine shipped,
    /// SQLite, parses with a stack of 100 symbols, and a construct costs it the symbols it
    /// holds open while it reads the nested operand. `(NOT x)` holds two, `(a = x)` three,
    /// `f(x)` three, but `f(a, x)` holds five, a relationship path's subquery six and an
    /// `IN (SELECT … WHERE x)` about eleven. So an operand written after a comma — the right
    /// side of arithmetic, a function's later arguments, BETWEEN's upper bound — sits two
    /// levels below its operator, a path's step two, a subquery's predicate four (see
    /// `levels(aboveOperandAt:)`): then no level costs more than three symbols, and 24
    /// levels leave room for the statement around them (measured on SQLite 3.15 and 3.40).
    public static let maximumNestingDepth = 24

    /// How many operands a list may hold per level: SQL drivers write a list of up to this
    /// many terms flat, and a longer one as a flat list of such groups, level by level.
    package static let listFanOut = 16

    /// The levels a list of `count` operands adds: 1 up to `listFanOut` operands, 2 up to its
    /// square, and so on; none for a single operand.
    package static func listLevels(_ count: Int) -> Int {
        var levels = 0
        var capacity = 1
        while capacity < count {
            capacity = capacity > Int.max / listFanOut ? Int.max : capacity * listFanOut
            levels += 1
        }
        return levels
    }

    /// `lhs AND rhs`, appending to an existing conjunction instead of nesting inside it.
    ///
    /// ```swift
    /// let both = QueryExpression.conjunction(.and([a, b]), c)   // .and([a, b, c])
    /// ```
    public static func conjunction(_ lhs: QueryExpression, _ rhs: QueryExpression) -> QueryExpression {
        .and(lhs.operands(ifAnd: true) + rhs.operands(ifAnd: true))
    }

    /// `lhs OR rhs`, appending to an existing disjunction instead of nesting inside it.
    public static func disjunction(_ lhs: QueryExpression, _ rhs: QueryExpression) -> QueryExpression {
        .or(lhs.operands(ifAnd: false) + rhs.operands(ifAnd: false))
    }

    /// The operands of an AND (or OR) list, or the expression itself as the only operand.
    private func operands(ifAnd and: Bool) -> [QueryExpression] {
        switch self {
        case .and(let operands) where and, .or(let operands) where !and: return operands
        default: return [self]
        }
    }

    /// The operands of this node, in order (none for columns and values).
    package var operands: [QueryExpression] {
        switch self {
        case .column, .value: return []
        case .comparison(_, let lhs, let rhs), .arithmetic(_, let lhs, let rhs), .like(let lhs, let rhs):
            return [lhs, rhs]
        case .and(let operands), .or(let operands), .function(_, let operands): return operands
        case .not(let operand), .isNull(let operand), .isIn(let operand, _), .path(_, let operand): return [operand]
        case .between(let operand, let lower, let upper): return [operand, lower, upper]
        case .isInSubquery(let operand, let subquery): return [operand] + (subquery.predicate.map { [$0] } ?? [])
        }
    }

    /// The levels this node adds above its operand at `position` (an index into
    /// ``operands``): one, two for an operand SQL writes after a comma (arithmetic's right
    /// side, a function's later arguments, BETWEEN's upper bound) and for a relationship
    /// path's step, four for a subquery's predicate, and for an AND/OR list the
    /// `listLevels(_:)` of its length (see ``maximumNestingDepth`` for why).
    ///
    /// ```swift
    /// QueryExpression.arithmetic(.add, .column("a"), .column("b")).levels(aboveOperandAt: 1)   // 2
    /// ```
    package func levels(aboveOperandAt position: Int) -> Int {
        switch self {
        case .and(let operands), .or(let operands): return Self.listLevels(operands.count)
        case .arithmetic, .function: return position == 0 ? 1 : 2
        case .between: return position == 2 ? 2 : 1
        case .path: return 2
        case .isInSubquery: return position == 0 ? 1 : 4
        case .column, .value, .comparison, .like, .not, .isNull, .isIn: return 1
        }
    }

    /// The levels of the tree: 1 for a column or a value, and above each operand the levels
    /// its operator adds (`levels(aboveOperandAt:)`): mostly one; for AND/OR lists one per
    /// sixteenfold length (`listLevels(_:)`).
    ///
    /// Measured with an explicit stack rather than by recursion, so that even an expression
    /// built by hand far deeper than ``maximumNestingDepth`` is measured without overflowing
    /// the stack.
    public var nestingDepth: Int {
        if let depth = shallowDepth(limit: Self.maximumNestingDepth + 1) { return depth }
        var deepest = 0
        var pending: [(QueryExpression, Int)] = [(self, 0)]
        while let (node, above) = pending.popLast() {
            let operands = node.operands
            if operands.isEmpty {
                deepest = max(deepest, above + 1)
                continue
            }
            for (position, operand) in operands.enumerated() {
                pending.append((operand, above + node.levels(aboveOperandAt: position)))
            }
        }
        return deepest
    }

    /// ``nestingDepth`` by plain recursion, which allocates nothing: what nearly every
    /// predicate (a comparison or two) takes. Nil when the tree is deeper than `limit`, which
    /// the explicit stack then measures without risking the thread's stack.
    private func shallowDepth(limit: Int) -> Int? {
        guard limit > 0 else { return nil }
        switch self {
        case .column, .value:
            return 1
        case .comparison(_, let lhs, let rhs), .like(let lhs, let rhs):
            return Self.deepest(lhs, 1, rhs, 1, limit: limit)
        case .arithmetic(_, let lhs, let rhs):
            return Self.deepest(lhs, 1, rhs, 2, limit: limit)
        case .not(let operand), .isNull(let operand), .isIn(let operand, _):
            return operand.shallowDepth(limit: limit - 1).map { $0 + 1 }
        case .path(_, let operand):
            return operand.shallowDepth(limit: limit - 2).map { $0 + 2 }
        case .between(let operand, let lower, let upper):
            guard let first = Self.deepest(operand, 1, lower, 1, limit: limit),
                let last = upper.shallowDepth(limit: limit - 2)
            else { return nil }
            return max(first, last + 2)
        case .isInSubquery(let operand, let subquery):
            guard let left = operand.shallowDepth(limit: limit - 1) else { return nil }
            guard let predicate = subquery.predicate else { return left + 1 }
            return predicate.shallowDepth(limit: limit - 4).map { max(left + 1, $0 + 4) }
        case .and(let operands), .or(let operands), .function(_, let operands):
            if operands.isEmpty { return 1 }
            var deepest = 0
            for (position, operand) in operands.enumerated() {
                // A one-operand list adds no level but is still a step of the recursion:
                // every step spends some of the budget, so that no hand-built chain can
                // exhaust the stack.
                let levels = levels(aboveOperandAt: position)
                guard let depth = operand.shallowDepth(limit: limit - max(levels, 1)) else { return nil }
                deepest = max(deepest, depth + levels)
            }
            return deepest
        }
    }

    /// The deeper of two operands, each with the levels its operator adds above it; nil when
    /// either is deeper than `limit`.
    private static func deepest(
        _ first: QueryExpression, _ firstLevels: Int, _ second: QueryExpression, _ secondLevels: Int, limit: Int
    ) -> Int? {
        guard let a = first.shallowDepth(limit: limit - firstLevels),
            let b = second.shallowDepth(limit: limit - secondLevels)
        else { return nil }
        return max(a + firstLevels, b + secondLevels)
    }

    /// The error for an expression nested deeper than ``maximumNestingDepth``, or nil.
    func nestingProblem(depth: Int) -> SharkError? {
        guard depth > Self.maximumNestingDepth else { return nil }
        return SharkError.invalidQuery(
            .nestedTooDeep,
            "the predicate nests \(depth) levels deep, more than the \(Self.maximumNestingDepth) every driver "
                + "accepts; chains of && and || do not nest, so build long conditions as chains or with isIn")
    }
}
