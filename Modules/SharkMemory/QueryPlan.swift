@_spi(SharkDriver) import SharkORM

/// How the memory engine finds the rows of a query: the cheapest access path the predicate
/// and ordering allow, chosen the way SQLite's planner would for the same indexes.
enum AccessPath: Equatable {
    /// Look up rows by key (equality or IN on the key): the keys distinct, in key order.
    case keys([Value])
    /// Rows whose key lies in a range, in key order.
    case keyRange(lower: Bound?, upper: Bound?)
    /// Entries of secondary index `index` whose first column lies in a range.
    case indexRange(index: Int, lower: Bound?, upper: Bound?)
    /// Entries of secondary index `index` whose first column is one of the values: the values
    /// distinct under the comparison (5 and 5.0 are one), in index order.
    case indexValues(index: Int, [Value])
    /// Every entry of a single-column index `index`, ascending: the ordering the query asks for.
    case indexOrder(index: Int)
    /// Every entry of a single-column index `index`, its values descending (equal values in
    /// key order): the ordering the query asks for.
    case indexOrderDescending(index: Int)
    /// Every row, in key order.
    case fullScan
    /// Every row, in descending key order: the ordering the query asks for.
    case fullScanDescending

    struct Bound: Equatable {
        let value: Value
        let inclusive: Bool
    }

    /// Whether the path yields rows already in the order the query needs (the query's
    /// ordering, then the key), so limits can stop the scan early.
    func deliversOrder(of query: EntityQuery, in table: MemoryTable) -> Bool {
        switch self {
        case .keyRange, .fullScan:
            // Key order: no ordering, or the key ascending (the windows of `batch(size:)`).
            guard let first = query.ordering.first else { return true }
            guard query.ordering.count == 1, first.ascending, case .column(let name) = first.expression else {
                return false
            }
            return name == table.schema.columns[0].name
        case .indexOrder, .indexOrderDescending, .fullScanDescending: return true
        case .keys, .indexRange, .indexValues: return false
        }
    }

    /// The path for `query` over `table`.
    static func choose(for query: EntityQuery, in table: MemoryTable) -> AccessPath {
        let schema = table.schema
        var best: (cost: Int, path: AccessPath)?
        func consider(_ cost: Int, _ path: AccessPath) {
            if best == nil || cost < best!.cost { best = (cost, path) }
        }
        func affinityOf(_ column: Int) -> SQLiteSemantics.Affinity {
            SQLiteSemantics.affinity(of: schema.columns[column].type)
        }
        func firstColumnIndexes(_ column: Int) -> [(Int, Bool)] {
            table.indexes.enumerated().compactMap { position, index in
                index.columns.first == column ? (position, index.schema.isUnique && index.columns.count == 1) : nil
            }
        }

        for term in conjuncts(of: query.predicate) {
            guard let (column, constraint) = constraint(in: term, schema: schema) else { continue }
            let affinity = affinityOf(column)
            let isKey = column == 0
            // A key is found by its stored form: `id = 3.0` finds the row whose integer key is 3,
            // as SQLite's comparison does (a key lookup matches the storage class too).
            func storedKey(_ raw: Value) -> Value { SQLiteSemantics.stored(raw, affinity: affinity) }
            switch constraint {
            case .equal(let raw):
                let value = SQLiteSemantics.apply(affinity, to: raw)
                if isKey { consider(0, .keys([storedKey(raw)])) }
                for (index, unique) in firstColumnIndexes(column) {
                    let bound = Bound(value: value, inclusive: true)
                    consider(unique ? 2 : 3, .indexRange(index: index, lower: bound, upper: bound))
                }
            case .oneOf(let raw):
                // Keys in key order, each once, as SQLite reads `key IN (…)`.
                if isKey {
                    consider(1, .keys(SQLiteSemantics.sortedDistinct(raw.filter { !$0.isNull }.map(storedKey))))
                }
                // An index walks each value once, in index order: 5 and 5.0 are one value. The
                // values are sorted only for a column an index starts with.
                let indexes = firstColumnIndexes(column)
                guard !indexes.isEmpty else { continue }
                let values = raw.map { SQLiteSemantics.apply(affinity, to: $0) }.filter { !$0.isNull }
                let walked = SQLiteSemantics.sortedDistinct(values, byStorageClass: false)
                for (index, _) in indexes { consider(4, .indexValues(index: index, walked)) }
            case .range(let lower, let upper):
                let low = lower.map {
                    Bound(value: SQLiteSemantics.apply(affinity, to: $0.value), inclusive: $0.inclusive)
                }
                let high = upper.map {
                    Bound(value: SQLiteSemantics.apply(affinity, to: $0.value), inclusive: $0.inclusive)
                }
                if isKey { consider(5, .keyRange(lower: low, upper: high)) }
                for (index, _) in firstColumnIndexes(column) {
                    consider(6, .indexRange(index: index, lower: low, upper: high))
                }
            case .isNull:
                for (index, _) in firstColumnIndexes(column) {
                    let bound = Bound(value: .null, inclusive: true)
                    consider(6, .indexRange(index: index, lower: bound, upper: bound))
                }
            }
        }
        if let best { return best.path }
        // No usable condition: the key or an index can still deliver the requested order, either
        // way (a descending walk of an index gives equal values in key order, the tie-break).
        if let first = query.ordering.first, query.ordering.count == 1,
            case .column(let name) = first.expression, let column = schema.columnIndex(named: name)
        {
            if column == 0 { return first.ascending ? .fullScan : .fullScanDescending }
            if let index = table.indexes.firstIndex(where: { $0.columns == [column] }) {
                return first.ascending ? .indexOrder(index: index) : .indexOrderDescending(index: index)
            }
        }
        return .fullScan
    }

    /// Whether walking `path` yields exactly the rows `predicate` accepts, so that testing each
    /// row again can be skipped: the predicate is one term, the one the path came from — a
    /// range with a lower bound (the entries before it include the NULLs, which no comparison
    /// accepts), or equality or `IN` on the key or an index's first column. The entries are
    /// ordered by SQLite's comparison of the stored values, which is how the term itself
    /// compares them.
    static func covers(_ predicate: QueryExpression?, with path: AccessPath, in table: MemoryTable) -> Bool {
        let terms = conjuncts(of: predicate)
        guard terms.count == 1, let (column, constraint) = constraint(in: terms[0], schema: table.schema) else {
            return false
        }
        switch (path, constraint) {
        case (.indexRange(let index, .some, _), .equal), (.indexRange(let index, .some, _), .isNull),
            (.indexRange(let index, .some, _), .range(lower: .some, upper: _)):
            return table.indexes[index].columns.first == column
        case (.keyRange(.some, _), .range(lower: .some, upper: _)):
            return column == 0
        case (.keys, .equal), (.keys, .oneOf):
            // The keys are the term's values under the key's affinity, found by the same
            // comparison the term makes: each row found is one the term accepts.
            return column == 0
        case (.indexValues(let index, _), .oneOf):
            return table.indexes[index].columns.first == column
        default:
            return false
        }
    }

    private enum Constraint {
        case equal(Value)
        case oneOf([Value])
        case range(lower: Bound?, upper: Bound?)
        case isNull
    }

    /// The terms of a conjunction: `a AND (b AND c)` → [a, b, c].
    private static func conjuncts(of expression: QueryExpression?) -> [QueryExpression] {
        guard let expression else { return [] }
        guard case .and(let operands) = expression else { return [expression] }
        var terms: [QueryExpression] = []
        for operand in operands { terms += conjuncts(of: operand) }
        return terms
    }

    /// `column op constant` (either way round), `column BETWEEN a AND b`, `column IN (…)`,
    /// `column IS NULL`: the terms an index can answer.
    private static func constraint(in term: QueryExpression, schema: EntitySchema) -> (Int, Constraint)? {
        func column(_ expression: QueryExpression) -> Int? {
            if case .column(let name) = expression { return schema.columnIndex(named: name) }
            return nil
        }
        func constant(_ expression: QueryExpression) -> Value? {
            if case .value(let value) = expression, !value.isNull { return value }
            return nil
        }
        switch term {
        case .comparison(let op, let lhs, let rhs):
            if let c = column(lhs), let v = constant(rhs) { return constraint(c, op, v) }
            if let c = column(rhs), let v = constant(lhs) { return constraint(c, flipped(op), v) }
            return nil
        case .between(let operand, let lower, let upper):
            guard let c = column(operand), let low = constant(lower), let high = constant(upper) else { return nil }
            return (c, .range(lower: Bound(value: low, inclusive: true), upper: Bound(value: high, inclusive: true)))
        case .isIn(let operand, let values):
            guard let c = column(operand) else { return nil }
            return (c, .oneOf(values))
        case .isNull(let operand):
            guard let c = column(operand) else { return nil }
            return (c, .isNull)
        default:
            return nil
        }
    }

    private static func constraint(_ column: Int, _ op: ComparisonOperator, _ value: Value) -> (Int, Constraint)? {
        switch op {
        case .equal: return (column, .equal(value))
        case .less: return (column, .range(lower: nil, upper: Bound(value: value, inclusive: false)))
        case .lessOrEqual: return (column, .range(lower: nil, upper: Bound(value: value, inclusive: true)))
        case .greater: return (column, .range(lower: Bound(value: value, inclusive: false), upper: nil))
        case .greaterOrEqual: return (column, .range(lower: Bound(value: value, inclusive: true), upper: nil))
        case .notEqual: return nil
        }
    }

    private static func flipped(_ op: ComparisonOperator) -> ComparisonOperator {
        switch op {
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return op
        }
    }
}
