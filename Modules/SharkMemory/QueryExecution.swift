@_spi(SharkDriver) import SharkORM

/// Runs a query over one table snapshot: walks the chosen access path, keeps the rows the
/// whole predicate accepts, orders them (query ordering, then key) and applies offset and
/// limit. Stops early when the path already delivers rows in the final order.
struct QueryExecution {
    let table: MemoryTable
    let query: EntityQuery
    let path: AccessPath
    /// The predicate each row of the path is tested against: nil when there is none, or when
    /// the path yields exactly the matching rows (see ``AccessPath/covers(_:with:in:)``).
    private let predicate: CompiledExpression?
    private let ordering: [(CompiledExpression, Bool)]
    /// Rows read from storage and tested against the predicate.
    private(set) var rowsVisited = 0

    init(_ query: EntityQuery, over table: MemoryTable, in database: MemoryDatabaseState) throws {
        self.table = table
        self.query = query
        self.path = AccessPath.choose(for: query, in: table)
        // A predicate the path answers is never evaluated: compiling it would be wasted work.
        predicate =
            AccessPath.covers(query.predicate, with: path, in: table)
            ? nil : try query.predicate.map { try CompiledExpression($0, schema: table.schema, database: database) }
        ordering = try query.ordering.map {
            (try CompiledExpression($0.expression, schema: table.schema, database: database), $0.ascending)
        }
    }

    /// The values a subquery gives, run against the same state as the query around it.
    static func values(of subquery: Subquery, in database: MemoryDatabaseState) throws -> [Value] {
        guard let table = database.table(named: subquery.entity) else {
            throw SharkError.driver(code: 1, message: "no such table: \(subquery.entity)", sql: nil)
        }
        guard let column = table.schema.columnIndex(named: subquery.column) else {
            throw SharkError.driver(code: 1, message: "no such column: \(subquery.column)", sql: nil)
        }
        var inner = EntityQuery(entity: subquery.entity)
        inner.predicate = subquery.predicate
        var execution = try QueryExecution(inner, over: table, in: database)
        var values: [Value] = []
        try execution.forEachMatch { values.append($0[column]) }
        return values
    }

    /// Calls `body` with each matching row, in the access path's order, ignoring any window:
    /// for callers whose query has none and to whom the order does not matter.
    mutating func forEachMatch(_ body: (Row) throws -> Void) throws {
        var failure: (any Error)?
        try visit { row in
            do {
                try body(row)
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    /// The matching rows, in order, after offset and limit.
    mutating func rows() throws(SharkError) -> [Row] {
        // SQLite reads a negative offset as none, and a negative limit as no limit.
        let offset = max(0, query.offset ?? 0)
        let limit = query.limit.map { $0 < 0 ? Int.max : $0 } ?? Int.max
        if limit == 0 { return [] }
        var matches: [Row] = []
        if path.deliversOrder(of: query, in: table) {
            // Saturating: `offset(Int.max)` or `limit(Int.max)` must not overflow.
            let (sum, overflow) = offset.addingReportingOverflow(limit)
            let wanted = overflow ? Int.max : sum
            try visit { row in
                matches.append(row)
                return matches.count < wanted
            }
            return Array(matches.dropFirst(offset))
        }
        try visit { row in
            matches.append(row)
            return true
        }
        // Unordered and unwindowed: the access path's order is as good as any.
        guard query.requiresOrder else { return matches }
        try sort(&matches)
        guard offset > 0 || limit < matches.count else { return matches }
        guard offset < matches.count else { return [] }
        return Array(matches.dropFirst(offset).prefix(limit))
    }

    /// How many rows match, after offset and limit.
    mutating func count() throws(SharkError) -> Int {
        // SQLite reads no row at all for `LIMIT 0`.
        if query.limit == 0 { return 0 }
        var total = 0
        // With a window over an order the path delivers, the walk stops at its end, as
        // SQLite's does: rows past it are never evaluated (nor can they fail).
        var wanted = Int.max
        if let limit = query.limit, limit >= 0, path.deliversOrder(of: query, in: table) {
            let (sum, overflow) = max(0, query.offset ?? 0).addingReportingOverflow(limit)
            wanted = overflow ? Int.max : sum
        }
        if wanted == 0 { return 0 }
        if predicate == nil {
            // The path yields exactly the matching rows, and its lists count what lies between
            // two positions: no row is read. (Walking them retained and released each row, a
            // cache miss apiece in a large store: a live count of one kind among a million
            // rows read ten thousand on every commit.)
            total = min(entriesOnPath(), wanted)
        } else {
            try visit { _ in
                total += 1
                return total < wanted
            }
        }
        let afterOffset = max(0, total - max(0, query.offset ?? 0))
        guard let limit = query.limit, limit >= 0 else { return afterOffset }
        return min(limit, afterOffset)
    }

    /// How many rows walking the path would offer, from the positions of its ends in the
    /// sorted lists (a position is a rank): a search per end, whatever the rows between.
    private func entriesOnPath() -> Int {
        switch path {
        case .fullScan, .fullScanDescending, .indexOrder, .indexOrderDescending:
            // Every row has one entry in the table's order and in each index.
            return table.count
        case .keys(let keys):
            return keys.reduce(0) { found, key in table.row(forKey: key) == nil ? found : found + 1 }
        case .keyRange(let lower, let upper):
            let (lower, upper) = (KeyBound(lower), KeyBound(upper))
            let start = table.ordered.firstPosition { Self.isBelow($0.sortKey, lower) }
            let end =
                upper == nil ? table.ordered.count : table.ordered.firstPosition { !Self.isAbove($0.sortKey, upper) }
            return max(0, end - start)
        case .indexRange(let position, let lower, let upper):
            let (lower, upper) = (KeyBound(lower), KeyBound(upper))
            let entries = table.indexes[position].entries
            let start = entries.firstPosition { Self.isBelow($0.first, lower) }
            let end = upper == nil ? entries.count : entries.firstPosition { !Self.isAbove($0.first, upper) }
            return max(0, end - start)
        case .indexValues(let position, let values):
            let entries = table.indexes[position].entries
            return values.reduce(0) { total, value in
                let sought = SortKey(value)
                let start = entries.firstPosition { SortKey.compare($0.first, sought) < 0 }
                let end = entries.firstPosition { SortKey.compare($0.first, sought) <= 0 }
                return total + (end - start)
            }
        }
    }

    /// Calls `accept` for each candidate row the predicate accepts, until it returns false;
    /// a predicate that fails on a row (SQLite would fail the statement) stops the walk.
    private mutating func visit(_ accept: (Row) -> Bool) throws(SharkError) {
        var visited = 0
        var failure: SharkError?
        defer { rowsVisited += visited }
        let predicate = self.predicate
        // Whether the walk goes on after `row`. A closure written in place, not a local
        // function: the variables a local function captures were checked for exclusive access
        // at run time on every row (a tenth of a sum's instructions).
        walk { row in
            visited += 1
            if let predicate {
                do throws(SharkError) {
                    // Unknown (NULL) rejects, as in SQL.
                    guard try predicate.truth(row) == true else { return true }
                } catch {
                    failure = error
                    return false
                }
            }
            return accept(row)
        }
        if let failure { throw failure }
    }

    /// Calls `offer` with each row of the access path, in its order, until it returns false.
    private func walk(_ offer: (Row) -> Bool) {
        switch path {
        case .keys(let keys):
            // Distinct already (the plan made them so).
            for key in keys {
                if let row = table.row(forKey: key), !offer(row) { return }
            }
        case .fullScan:
            table.ordered.forEach(from: table.ordered.startPosition) { keyed in
                offer(keyed.row)
            }
        case .keyRange(let lower, let upper):
            let (lower, upper) = (KeyBound(lower), KeyBound(upper))
            let start = table.ordered.firstPosition { Self.isBelow($0.sortKey, lower) }
            table.ordered.forEach(from: start) { keyed in
                guard !Self.isAbove(keyed.sortKey, upper) else { return false }
                return offer(keyed.row)
            }
        case .indexRange(let position, let lower, let upper):
            let (lower, upper) = (KeyBound(lower), KeyBound(upper))
            let entries = table.indexes[position].entries
            let start = entries.firstPosition { Self.isBelow($0.first, lower) }
            entries.forEach(from: start) { entry in
                guard !Self.isAbove(entry.first, upper) else { return false }
                return offer(entry.row)
            }
        case .indexValues(let position, let values):
            let entries = table.indexes[position].entries
            // The plan lists each value once, in index order (see `AccessPath.indexValues`).
            for value in values {
                let sought = SortKey(value)
                let start = entries.firstPosition { SortKey.compare($0.first, sought) < 0 }
                var stop = false
                entries.forEach(from: start) { entry in
                    guard SortKey.compare(entry.first, sought) == 0 else { return false }
                    if !offer(entry.row) {
                        stop = true
                        return false
                    }
                    return true
                }
                if stop { return }
            }
        case .indexOrder(let position):
            let entries = table.indexes[position].entries
            entries.forEach(from: entries.startPosition) { entry in offer(entry.row) }
        case .fullScanDescending:
            table.ordered.forEachBackwards { keyed in offer(keyed.row) }
        case .indexOrderDescending(let position):
            // Backwards, entries of one value come in descending key order: each run of equal
            // values is gathered and offered in key order, as the ordering's tie-break wants.
            var run: [Row] = []
            var runValue: SortKey?
            var stopped = false
            func offerRun() -> Bool {
                for row in run.reversed() where !offer(row) { return false }
                run.removeAll(keepingCapacity: true)
                return true
            }
            table.indexes[position].entries.forEachBackwards { entry in
                if let value = runValue, SortKey.compare(value, entry.first) != 0 {
                    guard offerRun() else {
                        stopped = true
                        return false
                    }
                }
                runValue = entry.first
                run.append(entry.row)
                return true
            }
            if !stopped { _ = offerRun() }
        }
    }

    /// A bound of a range walk in the form the sorted lists compare, made once per walk.
    private struct KeyBound {
        let key: SortKey
        let inclusive: Bool

        init?(_ bound: AccessPath.Bound?) {
            guard let bound else { return nil }
            (key, inclusive) = (SortKey(bound.value), bound.inclusive)
        }
    }

    private static func isBelow(_ value: SortKey, _ lower: KeyBound?) -> Bool {
        guard let lower else { return false }
        let order = SortKey.compare(value, lower.key)
        return lower.inclusive ? order < 0 : order <= 0
    }

    private static func isAbove(_ value: SortKey, _ upper: KeyBound?) -> Bool {
        guard let upper else { return false }
        let order = SortKey.compare(value, upper.key)
        return upper.inclusive ? order > 0 : order >= 0
    }

    /// Query ordering first (NULLs first when ascending), the key last: SQLite's order for
    /// `ORDER BY …, key`.
    private func sort(_ rows: inout [Row]) throws(SharkError) {
        if ordering.isEmpty {
            rows.sort { SQLiteSemantics.compare($0[0], $1[0]) < 0 }
            return
        }
        var keyed: [([Value], Row)] = []
        keyed.reserveCapacity(rows.count)
        for row in rows {
            var values: [Value] = []
            for (expression, _) in ordering { values.append(try expression.value(row)) }
            keyed.append((values, row))
        }
        let directions = ordering.map(\.1)
        keyed.sort { lhs, rhs in
            for (position, ascending) in directions.enumerated() {
                let order = SQLiteSemantics.compare(lhs.0[position], rhs.0[position])
                if order != 0 { return ascending ? order < 0 : order > 0 }
            }
            return SQLiteSemantics.compare(lhs.1[0], rhs.1[0]) < 0
        }
        rows = keyed.map(\.1)
    }
}
