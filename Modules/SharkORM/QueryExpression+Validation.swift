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
        var pending = [self]
        while let node = pending.popLast() {
            if case .function(let function, let arguments) = node, !function.arity.contains(arguments.count) {
                return SharkError.invalidQuery(
                    "\(function.rawValue) takes \(function.arityDescription), not \(arguments.count)")
            }
            pending += node.operands
        }
        return nil
    }
}

extension ScalarFunction {
    /// "1 argument", "at least 2 arguments".
    var arityDescription: String {
        if arity.upperBound == Int.max { return "at least \(arity.lowerBound) arguments" }
        return arity.lowerBound == 1 ? "1 argument" : "\(arity.lowerBound) arguments"
    }
}
