@_spi(SharkDriver) import SharkORM

/// Compiles a query AST to SQL text and the values to bind, in order.
///
/// Values are always bound, never spliced into the text, so the text depends only on the
/// query's shape and its prepared statement is reused across values. Two details keep every
/// predicate the other drivers accept working here too:
///
/// - **Parameter limit.** A library accepts at most so many `?` parameters (999 for the
///   SQLite 3.15 inside Debian's SQLCipher). Values past the limit are bound through
///   `shark_arg(i)` instead (see `overflow.c`): still bound, never spliced.
/// - **Depth.** SQLite parses `a AND b AND c …` into a tree as deep as the list is long and
///   refuses trees deeper than 1,000 levels; its parser's stack of 100 symbols also
///   overflows, after as few as nine nested subqueries. An AND/OR list is written flat up to
///   `QueryExpression.listFanOut` terms, and a longer one as a flat list of such groups, so
///   it costs exactly the levels ``QueryExpression/nestingDepth`` counts for it; the core
///   counts each other step by the symbols this text holds open for it, so every predicate
///   the core accepts fits both limits in every statement written here.
struct QueryCompiler {
    /// Values for the statement's `?` parameters, in order.
    private(set) var arguments: [Value] = []
    /// Values past the parameter limit, read by `shark_arg(i)` in this order.
    private(set) var overflow: [Value] = []
    /// How many `?` the text may use: the library's limit, less room for LIMIT and OFFSET.
    private let parameterLimit: Int
    /// The table that column names refer to, innermost last: nil for the query's own table
    /// (names stay unqualified), an alias inside a relationship path (see `path`).
    private var scopes: [String?] = [nil]
    /// The query's own table, which the outermost path refers back to.
    private var table = ""
    /// Aliases given to path tables so far.
    private var aliases = 0

    init(parameterLimit: Int = 999) {
        self.parameterLimit = max(2, parameterLimit - 2)
    }

    mutating func compile(_ expression: QueryExpression) -> String {
        var text = ""
        append(expression, to: &text)
        return text
    }

    /// `SELECT <columns> FROM t WHERE … ORDER BY …, key LIMIT ? OFFSET ?`.
    ///
    /// The key is always the last ordering term, so rows that tie come back in key order on
    /// every driver. A query that does not require an order (see
    /// ``EntityQuery/requiresOrder``) gets no ORDER BY at all: SQLite then returns rows in
    /// the order of the index or table it scans, with no sort.
    mutating func select(_ query: EntityQuery, statements: EntityStatements, columns: String) -> String {
        table = statements.table
        var sql = "SELECT "
        sql.reserveCapacity(columns.utf8.count + 128)
        sql += columns
        sql += " FROM "
        sql += statements.table
        if let predicate = query.predicate {
            sql += " WHERE "
            append(predicate, to: &sql)
        }
        if query.requiresOrder {
            sql += " ORDER BY "
            for term in query.ordering {
                append(term.expression, to: &sql)
                sql += term.ascending ? ", " : " DESC, "
            }
            sql += statements.key
        }
        appendLimit(query, to: &sql)
        return sql
    }

    /// `UPDATE t SET c = shark_fit(expression, column…), … WHERE key = ?`: the assignments'
    /// values bound first, the key last. `shark_fit` checks each computed value against its
    /// column (an `Int8` stays within -128...127) and fails the statement, which then changes
    /// nothing, when one does not fit.
    mutating func update(_ assignments: [ColumnAssignment], statements: EntityStatements) -> String {
        table = statements.table
        var sql = "UPDATE " + statements.table + " SET "
        for (position, assignment) in assignments.enumerated() {
            if position > 0 { sql += ", " }
            let column = statements.schema.columns[assignment.column]
            sql += SQLText.identifier(column.name)
            sql += " = shark_fit("
            append(assignment.value, to: &sql)
            for rule: Value in [
                .text(column.name), .text(column.type.rawValue), .integer(column.isNullable ? 1 : 0),
                column.logicalType.map { .text($0.rawValue) } ?? .null,
                column.bitWidth.map { .integer(Int64($0)) } ?? .null,
            ] {
                sql += ", "
                bind(rule, to: &sql)
            }
            sql += ")"
        }
        sql += " WHERE " + statements.key + " = ?"
        return sql
    }

    /// `SELECT count(*) …` honouring limit and offset.
    mutating func count(_ query: EntityQuery, statements: EntityStatements) -> String {
        table = statements.table
        var inner = "FROM \(statements.table)"
        if let predicate = query.predicate {
            inner += " WHERE "
            append(predicate, to: &inner)
        }
        if query.limit == nil && query.offset == nil { return "SELECT count(*) " + inner }
        appendLimit(query, to: &inner)
        return "SELECT count(*) FROM (SELECT 1 " + inner + ")"
    }

    /// `SELECT shark_sum(v) FROM (…)` over the values of `expression` for the matching rows:
    /// sums and averages are SharkORM's exact ones, `min` and `max` SQLite's.
    mutating func aggregate(
        _ function: AggregateFunction, of expression: QueryExpression, _ query: EntityQuery,
        statements: EntityStatements
    ) -> String {
        let name: String
        switch function {
        case .sum where Self.isIntegerColumn(expression, in: statements.schema):
            // SQLite's own sum is exact for integers and fails on overflow, as shark_sum does,
            // and it is several times faster.
            name = "sum"
        case .sum: name = "shark_sum"
        case .average: name = "shark_avg"
        case .minimum, .maximum: name = function.rawValue
        }
        let values = valueParts(of: expression, query, statements: statements)
        return values.window + "SELECT \(name)(shark_value) FROM (" + values.select + ")"
    }

    /// Whether `expression` is a column the schema says holds integers.
    private static func isIntegerColumn(_ expression: QueryExpression, in schema: EntitySchema) -> Bool {
        guard case .column(let name) = expression, let index = schema.columnIndex(named: name) else { return false }
        return schema.columns[index].type == .integer
    }

    private static let arithmeticFunctions: [ArithmeticOperator: String] = [
        .add: "shark_add", .subtract: "shark_subtract", .multiply: "shark_multiply", .divide: "shark_divide",
        .remainder: "shark_remainder",
    ]

    /// `SELECT DISTINCT v FROM (…) ORDER BY v` over the values of `expression` for the
    /// matching rows.
    mutating func distinct(_ expression: QueryExpression, _ query: EntityQuery, statements: EntityStatements) -> String
    {
        let values = valueParts(of: expression, query, statements: statements)
        return values.window + "SELECT DISTINCT shark_value FROM (" + values.select + ") ORDER BY shark_value"
    }

    /// `SELECT expression AS shark_value FROM t WHERE …` (see ``valueParts(of:_:statements:)``).
    mutating func values(of expression: QueryExpression, _ query: EntityQuery, statements: EntityStatements)
        -> String
    {
        let parts = valueParts(of: expression, query, statements: statements)
        return parts.window + parts.select
    }

    /// `SELECT expression AS shark_value FROM t WHERE …`; without a window the ordering is
    /// dropped, as no result depends on it, and SQLite flattens this into the statement
    /// around it. With a window, the expression is computed for the window's rows only —
    /// `WITH shark_window AS (SELECT key … ORDER BY … LIMIT …)` first, then `… WHERE key IN
    /// shark_window` — as every engine does: computed in the sorted select itself, SQLite would
    /// evaluate it for rows outside the window too, where an expression can fail (a division
    /// by zero) that the window never reaches. A `WITH` before the statement rather than a
    /// subquery inside it: SQLite's parser would count the subquery's parentheses against
    /// its depth limit. The parts come back apart so that a statement around the select puts
    /// the `WITH` first.
    mutating func valueParts(of expression: QueryExpression, _ query: EntityQuery, statements: EntityStatements)
        -> (window: String, select: String)
    {
        table = statements.table
        var window = ""
        if query.limit != nil || query.offset != nil {
            window = "WITH shark_window AS (" + select(query, statements: statements, columns: statements.key) + ") "
        }
        table = statements.table
        var sql = "SELECT "
        append(expression, to: &sql)
        sql += " AS shark_value FROM " + statements.table
        if !window.isEmpty {
            sql += " WHERE " + statements.key + " IN shark_window"
        } else if let predicate = query.predicate {
            sql += " WHERE "
            append(predicate, to: &sql)
        }
        return (window, sql)
    }

    private mutating func appendLimit(_ query: EntityQuery, to sql: inout String) {
        if query.limit != nil || query.offset != nil {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(query.limit ?? -1)))
        }
        if let offset = query.offset {
            sql += " OFFSET ?"
            arguments.append(.integer(Int64(offset)))
        }
    }

    /// Appends the SQL of `expression` to `text`: one growing string rather than a string per
    /// node, since this runs for every query.
    mutating func append(_ expression: QueryExpression, to text: inout String) {
        switch expression {
        case .column(let name):
            if let scope = scopes.last, let scope {
                text += scope
                text += "."
            }
            text += "\""
            text += name.contains("\"") ? name.replacingOccurrences(of: "\"", with: "\"\"") : name
            text += "\""
        case .value(let value):
            bind(value, to: &text)
        case .comparison(let op, let lhs, let rhs):
            binary(op.rawValue, lhs, rhs, &text)
        case .arithmetic(let op, let lhs, let rhs):
            // SharkORM's own functions, not SQLite's operators: exact integers (or an error),
            // decimals, division by zero refused (see SQLFunctions).
            text += Self.arithmeticFunctions[op]!
            text += "("
            append(lhs, to: &text)
            text += ", "
            append(rhs, to: &text)
            text += ")"
        case .and(let operands):
            list(operands[...], " AND ", empty: "1", &text)
        case .or(let operands):
            list(operands[...], " OR ", empty: "0", &text)
        case .not(let operand):
            text += "(NOT "
            append(operand, to: &text)
            text += ")"
        case .isNull(let operand):
            text += "("
            append(operand, to: &text)
            text += " IS NULL)"
        case .isIn(let operand, let values):
            // `x IN ()` is false for every x, NULL included: say so plainly.
            guard !values.isEmpty else {
                text += "0"
                return
            }
            text += "("
            append(operand, to: &text)
            text += " IN ("
            for (position, value) in values.enumerated() {
                if position > 0 { text += ", " }
                bind(value, to: &text)
            }
            text += "))"
        case .like(let operand, let pattern):
            binary("LIKE", operand, pattern, &text)
        case .between(let operand, let lower, let upper):
            text += "("
            append(operand, to: &text)
            text += " BETWEEN "
            append(lower, to: &text)
            text += " AND "
            append(upper, to: &text)
            text += ")"
        case .isInSubquery(let operand, let subquery):
            text += "("
            append(operand, to: &text)
            text += " IN (SELECT "
            // The subquery's names are its own table's, whatever surrounds it.
            scopes.append(SQLText.identifier(subquery.entity))
            append(.column(subquery.column), to: &text)
            text += " FROM "
            text += SQLText.identifier(subquery.entity)
            if let predicate = subquery.predicate {
                text += " WHERE "
                append(predicate, to: &text)
            }
            scopes.removeLast()
            text += "))"
        case .path(let step, let expression):
            path(step, expression, &text)
        case .function(let function, let arguments):
            // SQLite's own built-ins, but for `abs`, which follows the arithmetic's rules; the
            // core checked the argument count.
            text += function == .abs ? "shark_abs" : function.rawValue
            text += "("
            for (position, argument) in arguments.enumerated() {
                if position > 0 { text += ", " }
                append(argument, to: &text)
            }
            text += ")"
        }
    }

    /// `(SELECT expression FROM entity AS shark_pN WHERE shark_pN.key = outer.column)`: a
    /// correlated scalar subquery, which gives exactly what a LEFT JOIN on a to-one
    /// relationship gives — the related row's value, or NULL — and fits anywhere an
    /// expression does (predicates, orderings, aggregates). Inside it every name is qualified
    /// with its alias, so that a path from a model to itself (`mentor.name`) cannot mistake
    /// one row for the other.
    private mutating func path(_ step: RelationshipStep, _ expression: QueryExpression, _ text: inout String) {
        aliases += 1
        let alias = "shark_p\(aliases)"
        let outer = scopes.last.flatMap { $0 } ?? table
        text += "(SELECT "
        scopes.append(alias)
        append(expression, to: &text)
        scopes.removeLast()
        text += " FROM "
        text += SQLText.identifier(step.entity)
        text += " AS "
        text += alias
        text += " WHERE "
        text += alias
        text += "."
        text += SQLText.identifier(step.key)
        text += " = "
        if !outer.isEmpty {
            text += outer
            text += "."
        }
        text += SQLText.identifier(step.column)
        text += ")"
    }

    /// A `?` while the library has parameters left, `shark_arg(i)` after that.
    private mutating func bind(_ value: Value, to text: inout String) {
        if arguments.count < parameterLimit {
            arguments.append(value)
            text += "?"
        } else {
            text += "shark_arg("
            text += String(overflow.count)
            text += ")"
            overflow.append(value)
        }
    }

    /// Up to `QueryExpression.listFanOut` terms flat; a longer list as a flat list of at
    /// most that many groups, each written the same way.
    private mutating func list(
        _ operands: ArraySlice<QueryExpression>, _ separator: String, empty: String, _ text: inout String
    ) {
        if operands.isEmpty {
            text += empty
            return
        }
        if operands.count == 1 {
            append(operands[operands.startIndex], to: &text)
            return
        }
        let levels = QueryExpression.listLevels(operands.count)
        var groupSize = 1
        for _ in 1..<levels { groupSize *= QueryExpression.listFanOut }
        text += "("
        var start = operands.startIndex
        while start < operands.endIndex {
            if start > operands.startIndex { text += separator }
            let end = min(start + groupSize, operands.endIndex)
            if groupSize == 1 {
                append(operands[start], to: &text)
            } else {
                list(operands[start..<end], separator, empty: empty, &text)
            }
            start = end
        }
        text += ")"
    }

    private mutating func binary(_ op: String, _ lhs: QueryExpression, _ rhs: QueryExpression, _ text: inout String) {
        text += "("
        append(lhs, to: &text)
        text += " "
        text += op
        text += " "
        append(rhs, to: &text)
        text += ")"
    }
}
