@_spi(SharkDriver) import SharkORM

/// A query AST with column names resolved to positions, evaluated against rows with SQLite's
/// semantics: three-valued logic (a comparison with NULL is unknown), column affinity applied
/// to the values compared with a column, numeric comparison of integers and reals.
indirect enum CompiledExpression {
    case column(Int, SQLiteSemantics.Affinity)
    case value(Value)
    case comparison(ComparisonOperator, CompiledExpression, CompiledExpression)
    case arithmetic(ArithmeticOperator, CompiledExpression, CompiledExpression)
    case and([CompiledExpression])
    case or([CompiledExpression])
    case not(CompiledExpression)
    case isNull(CompiledExpression)
    case isIn(CompiledExpression, InList)
    case like(CompiledExpression, CompiledExpression)
    case between(CompiledExpression, CompiledExpression, CompiledExpression)
    case function(ScalarFunction, [CompiledExpression])
    /// The value of an expression over the row of `table` whose key column `column` holds.
    case path(Int, MemoryTable, CompiledExpression)

    /// Resolves column names against `schema`, subqueries to their values (computed once:
    /// they never refer to the outer row) and relationship paths to the tables of `database`;
    /// an unknown table or column is a typed error.
    init(_ expression: QueryExpression, schema: EntitySchema, database: MemoryDatabaseState) throws {
        switch expression {
        case .column(let name):
            guard let index = schema.columnIndex(named: name) else {
                throw SharkError.driver(code: 1, message: "no such column: \(name)", sql: nil)
            }
            self = .column(index, SQLiteSemantics.affinity(of: schema.columns[index].type))
        case .value(let value): self = .value(value)
        case .comparison(let op, let lhs, let rhs):
            self = .comparison(
                op, try Self(lhs, schema: schema, database: database),
                try Self(rhs, schema: schema, database: database))
        case .arithmetic(let op, let lhs, let rhs):
            self = .arithmetic(
                op, try Self(lhs, schema: schema, database: database),
                try Self(rhs, schema: schema, database: database))
        case .and(let operands): self = .and(try operands.map { try Self($0, schema: schema, database: database) })
        case .or(let operands): self = .or(try operands.map { try Self($0, schema: schema, database: database) })
        case .not(let operand): self = .not(try Self(operand, schema: schema, database: database))
        case .isNull(let operand): self = .isNull(try Self(operand, schema: schema, database: database))
        case .isIn(let operand, let values):
            let operand = try Self(operand, schema: schema, database: database)
            self = .isIn(operand, InList(values, affinity: operand.affinity))
        case .like(let operand, let pattern):
            self = .like(
                try Self(operand, schema: schema, database: database),
                try Self(pattern, schema: schema, database: database))
        case .between(let operand, let lower, let upper):
            self = .between(
                try Self(operand, schema: schema, database: database),
                try Self(lower, schema: schema, database: database),
                try Self(upper, schema: schema, database: database))
        case .function(let function, let arguments):
            guard function.arity.contains(arguments.count) else {
                throw SharkError.invalidQuery(
                    .wrongArgumentCount, "wrong number of arguments to \(function.rawValue): \(arguments.count)")
            }
            self = .function(function, try arguments.map { try Self($0, schema: schema, database: database) })
        case .isInSubquery(let operand, let subquery):
            let operand = try Self(operand, schema: schema, database: database)
            self = .isIn(
                operand, InList(try QueryExecution.values(of: subquery, in: database), affinity: operand.affinity))
        case .path(let step, let expression):
            guard let column = schema.columnIndex(named: step.column) else {
                throw SharkError.driver(code: 1, message: "no such column: \(step.column)", sql: nil)
            }
            guard let target = database.table(named: step.entity) else {
                throw SharkError.driver(code: 1, message: "no such table: \(step.entity)", sql: nil)
            }
            self = .path(column, target, try Self(expression, schema: target.schema, database: database))
        }
    }

    /// The affinity this expression gives the values compared with it: a column's own.
    fileprivate var affinity: SQLiteSemantics.Affinity? {
        switch self {
        case .column(_, let affinity): return affinity
        case .path(_, _, let expression): return expression.affinity
        default: return nil
        }
    }

    private var isColumn: Bool {
        switch self {
        case .column: return true
        case .path(_, _, let expression): return expression.isColumn
        default: return false
        }
    }

    /// The value of the expression for `row`. Throws where the arithmetic's rules refuse a
    /// result (see `ValueArithmetic`): an integer overflow, a division by zero.
    func value(_ row: [Value]) throws(SharkError) -> Value {
        switch self {
        case .column(let index, _): return row[index]
        case .value(let value): return value
        case .arithmetic(let op, let lhs, let rhs):
            return try ValueArithmetic.apply(op, try lhs.value(row), try rhs.value(row))
        case .function(let function, let arguments):
            return try ScalarFunctions.call(function, arguments, row)
        case .path(let column, let table, let expression):
            let key = row[column]
            if key.isNull { return .null }
            guard let related = table.row(forKey: key) else { return .null }
            return try expression.value(related)
        default:
            switch try truth(row) {
            case .some(true): return .integer(1)
            case .some(false): return .integer(0)
            case .none: return .null
            }
        }
    }

    /// The truth of the expression for `row`: nil is SQL's unknown (NULL).
    func truth(_ row: [Value]) throws(SharkError) -> Bool? {
        switch self {
        case .comparison(let op, let lhs, let rhs):
            guard let order = try Self.order(lhs, rhs, row) else { return nil }
            switch op {
            case .equal: return order == 0
            case .notEqual: return order != 0
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            case .greaterOrEqual: return order >= 0
            }
        case .and(let operands): return try Self.truth(of: operands, row, decidedBy: false)
        case .or(let operands): return try Self.truth(of: operands, row, decidedBy: true)
        case .not(let operand):
            return try operand.truth(row).map { !$0 }
        case .isNull(let operand):
            return try operand.value(row).isNull
        case .isIn(let operand, let list):
            let subject = try operand.value(row)
            if list.isEmpty { return false }
            if subject.isNull { return nil }
            if list.contains(subject) { return true }
            return list.hasNull ? nil : false
        case .like(let operand, let pattern):
            let subject = try operand.value(row)
            let pattern = try pattern.value(row)
            if subject.isNull || pattern.isNull { return nil }
            return LikePattern.matches(subject.coercedToText(), pattern: pattern.coercedToText())
        case .between(let operand, let lower, let upper):
            let low = try Self.order(operand, lower, row).map { $0 >= 0 }
            let high = try Self.order(operand, upper, row).map { $0 <= 0 }
            if low == false || high == false { return false }
            return low == nil || high == nil ? nil : true
        case .column, .value, .arithmetic, .function, .path:
            switch try value(row) {
            case .null: return nil
            case .integer(let v): return v != 0
            case .real(let v): return v != 0
            case .text(let v): return Value.text(v).coercedToDouble() != 0
            case .blob(let v): return Value.blob(v).coercedToDouble() != 0
            }
        }
    }

    /// SQL's three-valued AND (`decidedBy: false`) or OR (`decidedBy: true`) of a list: the
    /// deciding value wins, then unknown (NULL), then the other value.
    private static func truth(of operands: [CompiledExpression], _ row: [Value], decidedBy decisive: Bool)
        throws(SharkError) -> Bool?
    {
        var unknown = false
        for operand in operands {
            guard let truth = try operand.truth(row) else {
                unknown = true
                continue
            }
            if truth == decisive { return decisive }
        }
        return unknown ? nil : !decisive
    }

    /// Compares two operands as SQLite does (affinity first); nil when either is NULL.
    private static func order(_ lhs: CompiledExpression, _ rhs: CompiledExpression, _ row: [Value])
        throws(SharkError) -> Int?
    {
        var left = try lhs.value(row)
        var right = try rhs.value(row)
        if left.isNull || right.isNull { return nil }
        if let affinity = lhs.affinity, !rhs.isColumn {
            right = SQLiteSemantics.apply(affinity, to: right)
        } else if let affinity = rhs.affinity, !lhs.isColumn {
            left = SQLiteSemantics.apply(affinity, to: left)
        }
        return SQLiteSemantics.compare(left, right)
    }

    static func numeric(_ value: Value) -> Value {
        switch value {
        case .integer, .real: return value
        case .text(let text): return SQLiteSemantics.numeric(text) ?? .integer(Value.text(text).coercedToInt64())
        case .blob, .null: return .integer(value.coercedToInt64())
        }
    }
}

/// The values of an `IN (…)` list, prepared once per query: the operand's affinity applied,
/// NULLs set aside (they make a miss unknown rather than false), the rest sorted in SQLite's
/// order so that a row is looked up by binary search. A list of keys fetched by key (500 at
/// a time) is then tested in nine comparisons per row, not 250 on average.
struct InList {
    private let sorted: [Value]
    /// Whether the list was empty (then `IN` is false even for a NULL operand).
    let isEmpty: Bool
    let hasNull: Bool

    init(_ values: [Value], affinity: SQLiteSemantics.Affinity?) {
        isEmpty = values.isEmpty
        var hasNull = false
        var kept: [Value] = []
        kept.reserveCapacity(values.count)
        for candidate in values {
            let value = affinity.map { SQLiteSemantics.apply($0, to: candidate) } ?? candidate
            if value.isNull { hasNull = true } else { kept.append(value) }
        }
        sorted = SQLiteSemantics.sortedDistinct(kept, byStorageClass: false)
        self.hasNull = hasNull
    }

    /// Whether a value of the list equals `subject` (not NULL) in SQLite's comparison.
    func contains(_ subject: Value) -> Bool {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            let order = SQLiteSemantics.compare(sorted[middle], subject)
            if order == 0 { return true }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return false
    }
}
