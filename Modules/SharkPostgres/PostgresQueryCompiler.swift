import Foundation
import PostgresNIO
@_spi(SharkDriver) import SharkORM

/// Compiles the core's queries to PostgreSQL's SQL, every value bound (`$1`, `$2`…), never
/// spliced, so a statement's text depends only on the query's shape.
///
/// PostgreSQL's columns are typed where SQLite's are not, so each expression is compiled with
/// its type (``PostgresType``), and each literal is bound as the type of what it meets. Where
/// PostgreSQL's own rules would give another answer than docs/values.md, the text says what
/// the rule means instead:
///
/// - an integer compared with a real that no integer equals (`age < 20.5`) compares as
///   `numeric`, which is exact; a real compared with an integer that no `Double` equals
///   compares with the two doubles around it, so neither side is rounded;
/// - values of different storage classes compare by SQLite's order of classes (numbers, then
///   text, then blobs), not with a type error;
/// - NULL sorts first, ties are broken by key, `LIKE` folds ASCII letters only and knows no
///   escape character, and text compares byte by byte (the "C" collation).
struct PostgresQueryCompiler {
    /// The values of the statement's parameters, in order.
    private(set) var bindings = PostgresBindings()
    /// The same values as the core's, for tracing.
    private(set) var arguments: [Value] = []
    /// The schema of every entity a path or subquery names.
    let schemas: (String) throws -> EntitySchema
    /// The tables that column names refer to, innermost last: the alias names qualify them
    /// (nil for the query's own table, whose names stay unqualified).
    private var scopes: [(alias: String?, schema: EntitySchema)] = []
    private var aliases = 0

    init(schemas: @escaping (String) throws -> EntitySchema) {
        self.schemas = schemas
    }

    struct Compiled {
        var sql: String
        var type: PostgresType
        /// Whether it is a column, whose declared type converts what it is compared with as
        /// SQLite's column affinity does (`age = '3'` finds 3, `name = 5` finds "5").
        var isColumn = false
    }

    /// Makes `schema`'s table the one unqualified names refer to (before compiling
    /// expressions on their own, as `updateAll` does).
    mutating func enter(_ schema: EntitySchema) {
        scopes = [(nil, schema)]
    }

    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: Statements

    /// `SELECT <columns> FROM t WHERE … ORDER BY …, key LIMIT … OFFSET …`.
    mutating func select(_ query: EntityQuery, schema: EntitySchema, columns: String) throws -> String {
        scopes = [(nil, schema)]
        var sql = "SELECT " + columns + " FROM " + Self.identifier(schema.name)
        if let predicate = query.predicate { sql += " WHERE " + (try condition(predicate)) }
        if query.requiresOrder { sql += try orderBy(query, schema: schema) }
        appendWindow(query, to: &sql)
        return sql
    }

    /// ` ORDER BY …, key`: NULL first, as SQLite sorts it; ties broken by key.
    private mutating func orderBy(_ query: EntityQuery, schema: EntitySchema) throws -> String {
        var sql = " ORDER BY "
        for term in query.ordering {
            let compiled = try expression(term.expression)
            sql += compiled.sql + (term.ascending ? " ASC NULLS FIRST, " : " DESC NULLS LAST, ")
        }
        return sql + Self.identifier(schema.key.name)
    }

    /// The column list of a select: every column, or for a lightweight fetch the columns
    /// asked for (the key always), NULL in place of the others.
    static func columnList(_ schema: EntitySchema, only columns: ColumnSet? = nil) -> String {
        var list = ""
        for (position, column) in schema.columns.enumerated() {
            if position > 0 { list += ", " }
            if let columns, position > 0, !columns.contains(Int32(position)) {
                list += "NULL"
            } else {
                list += identifier(column.name)
            }
        }
        return list
    }

    /// `SELECT count(*)` of the matching rows, limit and offset applied.
    mutating func count(_ query: EntityQuery, schema: EntitySchema) throws -> String {
        scopes = [(nil, schema)]
        var inner = " FROM " + Self.identifier(schema.name)
        if let predicate = query.predicate { inner += " WHERE " + (try condition(predicate)) }
        if query.limit == nil && query.offset == nil { return "SELECT count(*)" + inner }
        if query.requiresOrder { inner += try orderBy(query, schema: schema) }
        appendWindow(query, to: &inner)
        return "SELECT count(*) FROM (SELECT 1" + inner + ") AS shark_counted"
    }

    /// `SELECT expression AS shark_value FROM t WHERE …`; with a window, the expression is
    /// computed for the window's rows only (an expression can fail on a row past it).
    mutating func values(of expression: QueryExpression, _ query: EntityQuery, schema: EntitySchema) throws
        -> (sql: String, type: PostgresType)
    {
        let table = Self.identifier(schema.name)
        let key = Self.identifier(schema.key.name)
        var window = ""
        if query.limit != nil || query.offset != nil {
            window =
                "WITH shark_window AS (" + (try select(query, schema: schema, columns: key)) + ") "
        }
        scopes = [(nil, schema)]
        let compiled = try self.expression(expression)
        var sql = window + "SELECT " + compiled.sql + " AS shark_value FROM " + table
        if !window.isEmpty {
            sql += " WHERE " + key + " IN (SELECT " + key + " FROM shark_window)"
        } else if let predicate = query.predicate {
            sql += " WHERE " + (try condition(predicate))
        }
        return (sql, compiled.type)
    }

    /// Binds the window's limit and offset (a NULL limit is none).
    private mutating func appendWindow(_ query: EntityQuery, to sql: inout String) {
        if query.limit != nil || query.offset != nil {
            sql +=
                " LIMIT "
                + bind(
                    query.limit.map { WireValue(payload: .bigint(Int64($0))) },
                    recorded: query.limit.map { .integer(Int64($0)) } ?? .null)
        }
        if let offset = query.offset {
            sql += " OFFSET " + bind(WireValue(payload: .bigint(Int64(offset))), recorded: .integer(Int64(offset)))
        }
    }

    // MARK: Parameters

    /// `$n` for a value (NULL for nil).
    mutating func bind(_ value: WireValue?, recorded: Value) -> String {
        guard let value else { return "NULL" }
        bindings.append(value)
        arguments.append(recorded)
        return "$" + String(bindings.count)
    }

    /// `value` bound as `type`: a NULL literal typed, so that PostgreSQL never has to guess.
    mutating func bind(_ value: Value, as type: PostgresType, column: String = "the value") throws -> String {
        guard let wire = try PostgresValues.wire(value, as: type, column: column) else {
            return type == .unknown ? "NULL" : "NULL::" + type.castName
        }
        return bind(wire, recorded: value)
    }

    // MARK: Expressions

    /// `expression` as a condition: booleans as they are, a number true when it is not 0.
    mutating func condition(_ expression: QueryExpression) throws -> String {
        let compiled = try self.expression(expression)
        switch compiled.type {
        case .boolean: return compiled.sql
        case .bigint, .double, .numeric: return "(" + compiled.sql + " <> 0)"
        case .unknown: return "(" + compiled.sql + ")::boolean"
        case .text, .bytea, .uuid: return "(" + compiled.sql + " IS NOT NULL AND FALSE)"
        }
    }

    mutating func expression(_ expression: QueryExpression) throws -> Compiled {
        switch expression {
        case .column(let name):
            return try column(name)
        case .value(let value):
            let type = PostgresType(of: value)
            let sql = try bind(value, as: type)
            return Compiled(sql: type == .text ? sql + " COLLATE \"C\"" : sql, type: type)
        case .comparison(let op, let lhs, let rhs):
            return Compiled(sql: try comparison(op, lhs, rhs), type: .boolean)
        case .arithmetic(let op, let lhs, let rhs):
            return try arithmetic(op, lhs, rhs)
        case .and(let operands):
            if operands.isEmpty { return Compiled(sql: "TRUE", type: .boolean) }
            return Compiled(
                sql: "(" + (try operands.map { try condition($0) }).joined(separator: " AND ") + ")", type: .boolean)
        case .or(let operands):
            if operands.isEmpty { return Compiled(sql: "FALSE", type: .boolean) }
            return Compiled(
                sql: "(" + (try operands.map { try condition($0) }).joined(separator: " OR ") + ")", type: .boolean)
        case .not(let operand):
            return Compiled(sql: "(NOT " + (try condition(operand)) + ")", type: .boolean)
        case .isNull(let operand):
            return Compiled(sql: "(" + (try self.expression(operand)).sql + " IS NULL)", type: .boolean)
        case .isIn(let operand, let values):
            return Compiled(sql: try isIn(operand, values), type: .boolean)
        case .like(let operand, let pattern):
            let text = try asText(try self.expression(operand))
            let patternText = try asText(try self.expression(pattern))
            return Compiled(sql: "(" + text + " ILIKE " + patternText + " ESCAPE '')", type: .boolean)
        case .between(let operand, let lower, let upper):
            let above = try comparison(.greaterOrEqual, operand, lower)
            let below = try comparison(.lessOrEqual, operand, upper)
            return Compiled(sql: "(" + above + " AND " + below + ")", type: .boolean)
        case .function(let function, let arguments):
            return try self.function(function, arguments)
        case .isInSubquery(let operand, let subquery):
            let compiled = try self.expression(operand)
            let schema = try schemas(subquery.entity)
            aliases += 1
            let alias = "shark_s\(aliases)"
            scopes.append((alias, schema))
            defer { scopes.removeLast() }
            let column = try self.column(subquery.column)
            var sql = "(" + compiled.sql + " IN (SELECT " + column.sql + " FROM " + Self.identifier(schema.name)
            sql += " AS " + alias
            if let predicate = subquery.predicate { sql += " WHERE " + (try condition(predicate)) }
            return Compiled(sql: sql + "))", type: .boolean)
        case .path(let step, let inner):
            return try path(step, inner)
        }
    }

    private func column(_ name: String) throws -> Compiled {
        guard let scope = scopes.last else {
            throw SharkError.invalidQuery(.init(.unknownColumn, "no table for column \(name)"))
        }
        let qualified = (scope.alias.map { $0 + "." } ?? "") + Self.identifier(name)
        guard let index = scope.schema.columnIndex(named: name) else {
            throw SharkError.invalidQuery(.init(.unknownColumn, "\(scope.schema.name) has no column \(name)"))
        }
        return Compiled(sql: qualified, type: PostgresType(scope.schema.columns[index]), isColumn: true)
    }

    /// A correlated scalar subquery: the related row's value, or NULL, as a LEFT JOIN gives.
    private mutating func path(_ step: RelationshipStep, _ inner: QueryExpression) throws -> Compiled {
        guard let outer = scopes.last else { throw SharkError.invalidQuery(.init(.unknownColumn, "no table")) }
        let outerColumn =
            (outer.alias ?? Self.identifier(outer.schema.name)) + "." + Self.identifier(step.column)
        let schema = try schemas(step.entity)
        aliases += 1
        let alias = "shark_p\(aliases)"
        scopes.append((alias, schema))
        defer { scopes.removeLast() }
        let compiled = try expression(inner)
        let sql =
            "(SELECT " + compiled.sql + " FROM " + Self.identifier(schema.name) + " AS " + alias + " WHERE "
            + alias + "." + Self.identifier(step.key) + " = " + outerColumn + ")"
        return Compiled(sql: sql, type: compiled.type)
    }

    // MARK: Comparisons

    private mutating func comparison(
        _ op: ComparisonOperator, _ lhs: QueryExpression, _ rhs: QueryExpression
    ) throws -> String {
        if case .value(let value) = rhs {
            return try compare(try expression(lhs), op, value)
        }
        if case .value(let value) = lhs {
            return try compare(try expression(rhs), op.mirrored, value)
        }
        return try compare(try expression(lhs), op, try expression(rhs))
    }

    /// An expression compared with a literal, bound as the expression's type where it fits.
    private mutating func compare(_ lhs: Compiled, _ op: ComparisonOperator, _ value: Value) throws -> String {
        let symbol = op == .notEqual ? "<>" : op.rawValue
        if value.isNull { return "NULL::boolean" }
        let value = lhs.isColumn ? Self.withAffinity(value, of: lhs.type) : value
        let valueRank = PostgresType(of: value).storageRank!
        switch lhs.type {
        case .unknown:
            let type = PostgresType(of: value)
            return "(" + lhs.sql + "::" + type.castName + " " + symbol + " " + (try bind(value, as: type)) + ")"
        case .bigint, .boolean:
            let operand = lhs.type == .boolean ? "(" + lhs.sql + ")::int" : lhs.sql
            switch value {
            case .integer:
                if lhs.type == .boolean, op == .equal || op == .notEqual, case .integer(let flag) = value,
                    flag == 0 || flag == 1
                {
                    return "(" + lhs.sql + " " + symbol + " " + (try bind(value, as: .boolean)) + ")"
                }
                return "(" + operand + " " + symbol + " " + (try bind(value, as: .bigint)) + ")"
            case .real(let real) where real == real.rounded() && abs(real) < 0x1p63:
                return "(" + operand + " " + symbol + " " + (try bind(value, as: .bigint)) + ")"
            case .real(let real) where real.isFinite:
                return "(" + operand + "::numeric " + symbol + " " + (try bind(value, as: .numeric)) + ")"
            case .real:
                return "(" + operand + "::double precision " + symbol + " " + (try bind(value, as: .double)) + ")"
            default:
                return ranked(lhs.sql, 0, op, valueRank)
            }
        case .double:
            switch value {
            case .real:
                return "(" + lhs.sql + " " + symbol + " " + (try bind(value, as: .double)) + ")"
            case .integer(let integer):
                let nearest = Double(integer)
                if nearest.isExactly(integer) {
                    return "(" + lhs.sql + " " + symbol + " " + (try bind(.real(nearest), as: .double)) + ")"
                }
                // No double equals the integer: compare with the doubles either side of it.
                let nearestIsAbove = nearest >= 0x1p63 || Int64(nearest) > integer
                let (low, high) = nearestIsAbove ? (nearest.nextDown, nearest) : (nearest, nearest.nextUp)
                return try between(lhs.sql, op, low: low, high: high)
            default:
                return ranked(lhs.sql, 0, op, valueRank)
            }
        case .numeric:
            switch value {
            case .integer, .real:
                if case .real(let real) = value, !real.isFinite {
                    return "(" + lhs.sql + " " + symbol + " '" + (real > 0 ? "Infinity" : "-Infinity")
                        + "'::numeric)"
                }
                return "(" + lhs.sql + " " + symbol + " " + (try bind(value, as: .numeric)) + ")"
            case .text(let text) where DecimalText.decode(text) != nil:
                return "(" + lhs.sql + " " + symbol + " " + (try bind(value, as: .numeric)) + ")"
            default:
                return ranked(lhs.sql, 0, op, valueRank)
            }
        case .text:
            guard case .text = value else { return ranked(lhs.sql, 1, op, valueRank) }
            return "(" + lhs.sql + " " + symbol + " " + (try bind(value, as: .text)) + " COLLATE \"C\")"
        case .bytea:
            guard case .blob = value else { return ranked(lhs.sql, 2, op, valueRank) }
            return "(" + lhs.sql + " " + symbol + " " + (try bind(value, as: .bytea)) + ")"
        case .uuid:
            guard case .blob(let bytes) = value else { return ranked(lhs.sql, 2, op, valueRank) }
            if bytes.count == 16 {
                return "(" + lhs.sql + " " + symbol + " " + (try bind(value, as: .uuid)) + ")"
            }
            return "(uuid_send(" + lhs.sql + ") " + symbol + " " + (try bind(value, as: .bytea)) + ")"
        }
    }

    /// `x op n` for an integer `n` no double equals, `low < n < high` its neighbours.
    private mutating func between(_ x: String, _ op: ComparisonOperator, low: Double, high: Double) throws
        -> String
    {
        let lowSQL = try bind(.real(low), as: .double)
        let highSQL = try bind(.real(high), as: .double)
        switch op {
        case .equal: return "(" + x + " < " + lowSQL + " AND " + x + " > " + highSQL + ")"
        case .notEqual: return "(" + x + " <= " + lowSQL + " OR " + x + " >= " + highSQL + ")"
        case .less, .lessOrEqual: return "(" + x + " <= " + lowSQL + ")"
        case .greater, .greaterOrEqual: return "(" + x + " >= " + highSQL + ")"
        }
    }

    /// Values of two storage classes: the answer is the order of the classes, NULL when the
    /// expression is NULL.
    private func ranked(_ sql: String, _ rank: Int, _ op: ComparisonOperator, _ otherRank: Int) -> String {
        let holds: Bool
        switch op {
        case .equal: holds = rank == otherRank
        case .notEqual: holds = rank != otherRank
        case .less: holds = rank < otherRank
        case .lessOrEqual: holds = rank <= otherRank
        case .greater: holds = rank > otherRank
        case .greaterOrEqual: holds = rank >= otherRank
        }
        return "(CASE WHEN " + sql + " IS NULL THEN NULL ELSE " + (holds ? "TRUE" : "FALSE") + " END)"
    }

    /// Two expressions compared.
    private func compare(_ lhs: Compiled, _ op: ComparisonOperator, _ rhs: Compiled) throws -> String {
        let symbol = op == .notEqual ? "<>" : op.rawValue
        var (left, right) = (lhs.sql, rhs.sql)
        switch (lhs.type, rhs.type) {
        case (let a, let b) where a == b:
            if a == .text { right += " COLLATE \"C\"" }
        case (.unknown, let type): left += "::" + type.castName
        case (let type, .unknown): right += "::" + type.castName
        case (.boolean, _) where rhs.type.isNumber:
            left = "(" + left + ")::int"
            if rhs.type == .numeric { left += "::numeric" }
        case (_, .boolean) where lhs.type.isNumber:
            right = "(" + right + ")::int"
            if lhs.type == .numeric { right += "::numeric" }
        case (.numeric, .bigint): right += "::numeric"
        case (.bigint, .numeric): left += "::numeric"
        case (.numeric, .double): right = "(" + right + ")::text::numeric"
        case (.double, .numeric): left = "(" + left + ")::text::numeric"
        case (.bigint, .double), (.double, .bigint): break
        case (.uuid, .bytea): left = "uuid_send(" + left + ")"
        case (.bytea, .uuid): right = "uuid_send(" + right + ")"
        default:
            let holds = ranked("x", lhs.type.storageRank ?? 0, op, rhs.type.storageRank ?? 0)
            return holds.replacingOccurrences(
                of: "x IS NULL", with: "(" + left + ") IS NULL OR (" + right + ") IS NULL")
        }
        return "(" + left + " " + symbol + " " + right + ")"
    }

    private mutating func isIn(_ operand: QueryExpression, _ values: [Value]) throws -> String {
        let compiled = try expression(operand)
        // `x IN ()` is false for every x, NULL included.
        guard !values.isEmpty else { return "FALSE" }
        var list: [String] = []
        var others: [String] = []
        for value in values {
            let value = compiled.isColumn ? Self.withAffinity(value, of: compiled.type) : value
            if let sql = try? bindEqual(value, to: compiled.type) {
                list.append(sql)
            } else if !value.isNull {
                // A value of another class, or one the type cannot equal: compared as such.
                others.append(try compare(compiled, .equal, value))
            } else {
                list.append("NULL")
            }
        }
        var parts: [String] = []
        if !list.isEmpty { parts.append("(" + compiled.sql + " IN (" + list.joined(separator: ", ") + "))") }
        parts += others
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " OR ") + ")"
    }

    /// What SQLite's affinity makes of `value` compared with a column of `type`: text that
    /// spells a number, for an integer column (INTEGER affinity), that number; a number, for
    /// a text column (TEXT affinity), its text. Real columns are created with no affinity.
    static func withAffinity(_ value: Value, of type: PostgresType) -> Value {
        switch (value, type) {
        case (.text(let text), .bigint), (.text(let text), .boolean):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let integer = Int64(trimmed) { return .integer(integer) }
            if trimmed.range(of: #"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"#, options: .regularExpression)
                != nil, let real = Double(trimmed)
            {
                return .real(real)
            }
            return value
        case (.integer, .text), (.real, .text):
            return .text(value.coercedToText())
        default:
            return value
        }
    }

    /// `value` bound as `type` when a value of that type can equal it; nil otherwise.
    private mutating func bindEqual(_ value: Value, to type: PostgresType) throws -> String? {
        switch (value, type) {
        case (.null, _): return nil
        case (.integer, .bigint), (.real, .double), (.text, .text), (.blob, .bytea): return try bind(value, as: type)
        case (.integer, .numeric), (.real, .numeric): return try bind(value, as: .numeric)
        case (.text(let text), .numeric) where DecimalText.decode(text) != nil: return try bind(value, as: .numeric)
        case (.blob(let bytes), .uuid) where bytes.count == 16: return try bind(value, as: .uuid)
        case (.integer(let flag), .boolean) where flag == 0 || flag == 1: return try bind(value, as: .boolean)
        case (.real(let real), .bigint) where real == real.rounded() && abs(real) < 0x1p63:
            return try bind(value, as: .bigint)
        case (.integer(let integer), .double) where Double(integer).isExactly(integer):
            return try bind(.real(Double(integer)), as: .double)
        case (_, .unknown): return try bind(value, as: PostgresType(of: value))
        default: throw SharkError.invalidValue(.init(.doesNotFitColumn, "no equal value"))
        }
    }

    // MARK: Arithmetic and functions

    private mutating func arithmetic(
        _ op: ArithmeticOperator, _ lhs: QueryExpression, _ rhs: QueryExpression
    ) throws -> Compiled {
        var left: Compiled
        var right: Compiled
        switch (lhs, rhs) {
        case (.value(let a), .value(let b)):
            left = try operand(a, meeting: PostgresType(of: b))
            right = try operand(b, meeting: left.type)
        case (.value(let value), _):
            right = try expression(rhs)
            left = try operand(value, meeting: right.type)
        case (_, .value(let value)):
            left = try expression(lhs)
            right = try operand(value, meeting: left.type)
        default:
            left = try expression(lhs)
            right = try expression(rhs)
        }
        for side in [left, right] where !side.type.isNumber && side.type != .unknown {
            throw SharkError.invalidQuery(
                .init(.unsupportedOperands, "\(op.rawValue) takes numbers, not \(side.type.castName)"))
        }
        if left.type == .boolean { left = Compiled(sql: "(" + left.sql + ")::int::bigint", type: .bigint) }
        if right.type == .boolean { right = Compiled(sql: "(" + right.sql + ")::int::bigint", type: .bigint) }
        let type: PostgresType
        if left.type == .numeric || right.type == .numeric {
            if op == .remainder {
                throw SharkError.invalidQuery(.init(.unsupportedOperands, "% takes integers or reals, not decimals"))
            }
            type = .numeric
        } else if left.type == .double || right.type == .double {
            type = .double
        } else if left.type == .unknown && right.type == .unknown {
            return Compiled(sql: "NULL", type: .unknown)
        } else {
            type = .bigint
        }
        let a = converted(left, to: type)
        let b = converted(right, to: type)
        switch type {
        case .double:
            // IEEE's answers where PostgreSQL refuses (PostgresFunctions).
            return Compiled(sql: "shark_real('" + op.rawValue + "', " + a + ", " + b + ")", type: .double)
        case .numeric where op == .divide:
            // Enough decimals for any Decimal quotient before it is rounded to one.
            return Compiled(
                sql: "shark_decimal((" + a + ")::numeric(1000, 170) / " + b + ")", type: .numeric)
        case .numeric:
            return Compiled(sql: "shark_decimal(" + a + " " + op.rawValue + " " + b + ")", type: .numeric)
        default:
            return Compiled(sql: "(" + a + " " + op.rawValue + " " + b + ")", type: type)
        }
    }

    /// A literal operand of arithmetic, typed by what it meets.
    private mutating func operand(_ value: Value, meeting type: PostgresType) throws -> Compiled {
        switch (value, type) {
        case (.integer, .numeric), (.real, .numeric), (.text, .numeric):
            return Compiled(sql: try bind(value, as: .numeric), type: .numeric)
        case (.integer(let integer), .double):
            return Compiled(sql: try bind(.real(Double(integer)), as: .double), type: .double)
        case (.text(let text), _) where DecimalText.decode(text) != nil:
            // Text in arithmetic is a decimal the core wrote in its sortable form (it refuses
            // arithmetic on other text where the predicate is written).
            return Compiled(sql: try bind(value, as: .numeric), type: .numeric)
        default:
            return try expression(.value(value))
        }
    }

    private func converted(_ compiled: Compiled, to type: PostgresType) -> String {
        if compiled.type == type { return compiled.sql }
        switch (compiled.type, type) {
        case (.double, .numeric): return "(" + compiled.sql + ")::text::numeric"
        default: return "(" + compiled.sql + ")::" + type.castName
        }
    }

    /// Text for `LIKE`, `lower` and `upper`: a number reads as its text, as in SQLite.
    private func asText(_ compiled: Compiled) throws -> String {
        switch compiled.type {
        case .text: return "(" + compiled.sql + " COLLATE \"C\")"
        case .unknown, .bigint: return "(" + compiled.sql + ")::text COLLATE \"C\""
        case .boolean: return "(" + compiled.sql + ")::int::text COLLATE \"C\""
        case .double: return "shark_real_text(" + compiled.sql + ") COLLATE \"C\""
        case .numeric, .bytea, .uuid:
            throw SharkError.invalidQuery(
                .init(.unsupportedOperands, "text functions take text, not \(compiled.type.castName)"))
        }
    }

    private mutating func function(_ function: ScalarFunction, _ arguments: [QueryExpression]) throws -> Compiled {
        switch function {
        case .lower, .upper:
            let argument = try asText(try expression(arguments[0]))
            return Compiled(sql: function.rawValue + "(" + argument + ")", type: .text)
        case .length:
            let argument = try expression(arguments[0])
            switch argument.type {
            case .text: return Compiled(sql: "char_length(" + argument.sql + ")::bigint", type: .bigint)
            case .bytea: return Compiled(sql: "octet_length(" + argument.sql + ")::bigint", type: .bigint)
            case .uuid: return Compiled(sql: "octet_length(uuid_send(" + argument.sql + "))::bigint", type: .bigint)
            case .numeric:
                throw SharkError.invalidQuery(.init(.unsupportedOperands, "length takes text or a blob, not a decimal"))
            default:
                return Compiled(sql: "char_length(" + (try asText(argument)) + ")::bigint", type: .bigint)
            }
        case .abs:
            let argument = try expression(arguments[0])
            guard argument.type.isNumber || argument.type == .unknown else {
                throw SharkError.invalidQuery(.init(.unsupportedOperands, "abs takes a number"))
            }
            let sql = argument.type == .boolean ? "(" + argument.sql + ")::int::bigint" : argument.sql
            return Compiled(sql: "abs(" + sql + ")", type: argument.type == .boolean ? .bigint : argument.type)
        case .coalesce:
            var compiled: [Compiled] = []
            var type = PostgresType.unknown
            for argument in arguments {
                if case .value(let value) = argument, type != .unknown {
                    compiled.append(Compiled(sql: try bind(value, as: type), type: type))
                    continue
                }
                let next = try expression(argument)
                if type == .unknown { type = next.type }
                compiled.append(next)
            }
            let parts = compiled.map { $0.type == type || $0.type == .unknown ? $0.sql : converted($0, to: type) }
            return Compiled(sql: "COALESCE(" + parts.joined(separator: ", ") + ")", type: type)
        }
    }
}

extension ComparisonOperator {
    /// The operator with its operands swapped: `a < b` is `b > a`.
    var mirrored: ComparisonOperator {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        }
    }
}

extension Double {
    /// Whether this double is exactly `integer`.
    func isExactly(_ integer: Int64) -> Bool {
        guard self == self.rounded(), abs(self) < 0x1p63 else { return false }
        return Int64(self) == integer
    }
}
