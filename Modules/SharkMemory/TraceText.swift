@_spi(SharkDriver) import SharkORM

/// The text the memory engine reports to tracers for a query it ran: SQL-like, so traces of
/// every driver read alike, with a `?` for every value so the tracer can redact them.
enum TraceText {
    /// `expression` with its values replaced by `?`, the values appended to `arguments`.
    static func render(_ expression: QueryExpression, arguments: inout [Value]) -> String {
        switch expression {
        case .column(let name): return "\"" + name + "\""
        case .value(let value):
            arguments.append(value)
            return "?"
        case .comparison(let op, let lhs, let rhs):
            return "(\(render(lhs, arguments: &arguments)) \(op.rawValue) \(render(rhs, arguments: &arguments)))"
        case .arithmetic(let op, let lhs, let rhs):
            return "(\(render(lhs, arguments: &arguments)) \(op.rawValue) \(render(rhs, arguments: &arguments)))"
        case .and(let operands): return list(operands, " AND ", &arguments)
        case .or(let operands): return list(operands, " OR ", &arguments)
        case .not(let operand): return "(NOT \(render(operand, arguments: &arguments)))"
        case .isNull(let operand): return "(\(render(operand, arguments: &arguments)) IS NULL)"
        case .isIn(let operand, let values):
            let subject = render(operand, arguments: &arguments)
            arguments += values
            return "(\(subject) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", "))))"
        case .like(let operand, let pattern):
            return "(\(render(operand, arguments: &arguments)) LIKE \(render(pattern, arguments: &arguments)))"
        case .between(let operand, let lower, let upper):
            let subject = render(operand, arguments: &arguments)
            return
                "(\(subject) BETWEEN \(render(lower, arguments: &arguments)) AND \(render(upper, arguments: &arguments)))"
        case .path(let step, let expression):
            return
                "(SELECT \(render(expression, arguments: &arguments)) FROM \"\(step.entity)\" WHERE \"\(step.key)\" = \"\(step.column)\")"
        case .isInSubquery(let operand, let subquery):
            let subject = render(operand, arguments: &arguments)
            let filter = subquery.predicate.map { " WHERE " + render($0, arguments: &arguments) } ?? ""
            return "(\(subject) IN (SELECT \"\(subquery.column)\" FROM \"\(subquery.entity)\"\(filter)))"
        case .function(let function, let inputs):
            return function.rawValue + "(" + inputs.map { render($0, arguments: &arguments) }.joined(separator: ", ")
                + ")"
        }
    }

    private static func list(_ operands: [QueryExpression], _ separator: String, _ arguments: inout [Value]) -> String {
        "(" + operands.map { render($0, arguments: &arguments) }.joined(separator: separator) + ")"
    }
}
