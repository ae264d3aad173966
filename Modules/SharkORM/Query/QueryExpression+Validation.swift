extension QueryExpression {
    /// Why this expression cannot run, the same on every driver, or nil: it nests deeper than
    /// ``maximumNestingDepth``, or calls a function with the wrong number of arguments.
    ///
    /// Typed predicates and the string-predicate parser never build such expressions; this
    /// checks the ones built by hand, before any driver sees them.
    ///
    /// ```swift
    /// let bad = QueryExpression.function(.lower, [])
    /// print(bad.problem!)   // invalid query: lower takes 1 argument, not 0
    /// ```
    public var problem: SharkError? {
        if let tooDeep = nestingProblem(depth: nestingDepth) { return tooDeep }
        switch callProblem(budget: 64) {
        case .none: return nil
        case .some(let problem): return problem
        case .tooDeepToRecurse: break
        }
        var pending = [self]
        while let node = pending.popLast() {
            if case .function(let function, let arguments) = node, !function.arity.contains(arguments.count) {
                return SharkError.invalidQuery(
                    .wrongArgumentCount,
                    "\(function.rawValue) takes \(function.arityDescription), not \(arguments.count)")
            }
            pending += node.operands
        }
        return nil
    }
}

/// What ``QueryExpression/callProblem(budget:)`` found.
private enum CallCheck {
    case none
    case some(SharkError)
    case tooDeepToRecurse
}

extension QueryExpression {
    /// The first function call with the wrong number of arguments, by plain recursion (no
    /// allocation, unlike the explicit stack), giving up past `budget` steps down.
    private func callProblem(budget: Int) -> CallCheck {
        guard budget > 0 else { return .tooDeepToRecurse }
        // Operands one by one (a variadic list would allocate an array per node).
        func check(_ first: QueryExpression, _ second: QueryExpression, _ third: QueryExpression? = nil) -> CallCheck {
            let result = first.callProblem(budget: budget - 1)
            if case .none = result {
                let next = second.callProblem(budget: budget - 1)
                if case .none = next, let third { return third.callProblem(budget: budget - 1) }
                return next
            }
            return result
        }
        switch self {
        case .column, .value:
            return .none
        case .comparison(_, let lhs, let rhs), .arithmetic(_, let lhs, let rhs), .like(let lhs, let rhs):
            return check(lhs, rhs)
        case .not(let operand), .isNull(let operand), .isIn(let operand, _), .path(_, let operand):
            return operand.callProblem(budget: budget - 1)
        case .between(let operand, let lower, let upper):
            return check(operand, lower, upper)
        case .isInSubquery(let operand, let subquery):
            guard let predicate = subquery.predicate else { return operand.callProblem(budget: budget - 1) }
            return check(operand, predicate)
        case .function(let function, let arguments) where !function.arity.contains(arguments.count):
            return .some(
                SharkError.invalidQuery(
                    .wrongArgumentCount,
                    "\(function.rawValue) takes \(function.arityDescription), not \(arguments.count)"))
        case .and(let operands), .or(let operands), .function(_, let operands):
            for operand in operands {
                let result = operand.callProblem(budget: budget - 1)
                if case .none = result { continue }
                return result
            }
            return .none
        }
    }
}

extension ScalarFunction {
    /// "1 argument", "at least 2 arguments".
    var arityDescription: String {
        if arity.upperBound == Int.max { return "at least \(arity.lowerBound) arguments" }
        return arity.lowerBound == 1 ? "1 argument" : "\(arity.lowerBound) arguments"
    }
}
