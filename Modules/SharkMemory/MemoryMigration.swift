import Foundation
@_spi(SharkDriver) import SharkORM

extension MemoryTable {
    /// The table reshaped to `schema`, with its rows: the memory engine's version of the SQL
    /// drivers' automatic migration, with the same outcomes.
    ///
    /// Added columns get the property's initial value (or the zero of the storage class);
    /// removed columns are dropped; retyped columns are converted as SQLite's `CAST` would,
    /// and refused with `SharkError.lossySchemaChange` when a stored
    /// value would change; columns that became non-optional have their NULLs back-filled;
    /// indexes are rebuilt (a new unique index over duplicates is refused). The current table
    /// is untouched until the new one is complete.
    func migrated(to schema: EntitySchema) throws -> MemoryTable {
        let old = self.schema
        let sources = schema.sources(in: old)
        var plan: [(source: Int?, column: ColumnSchema, convert: Bool, coalesce: Bool, fill: Value)] = []
        // Decimal columns whose text is plain, written before the sortable form.
        var sortsDecimals: Set<Int> = []
        for (index, column) in schema.columns.enumerated() {
            let fill = column.backfillValue
            guard let position = sources[index] else {
                plan.append((nil, column, false, false, column.isNullable ? (column.defaultValue ?? .null) : fill))
                continue
            }
            let previous = old.columns[position]
            if previous.type != column.type {
                try checkConversion(of: position, from: previous, to: column)
            }
            if column.logicalType == .sortableDecimal && previous.logicalType != .sortableDecimal {
                sortsDecimals.insert(plan.count)
            }
            plan.append(
                (position, column, previous.type != column.type, previous.isNullable && !column.isNullable, fill))
        }
        var table = MemoryTable(schema: schema)
        // Integers beyond the range of a property's narrower type (an Int now an Int8).
        var outOfRange: [Int: Int] = [:]
        for keyed in orderedRows() {
            var row = Row()
            row.reserveCapacity(plan.count)
            for (index, step) in plan.enumerated() {
                guard let source = step.source else {
                    row.append(step.fill)
                    continue
                }
                var value = keyed[source]
                if step.convert { value = SQLiteSemantics.cast(value, to: step.column.type) }
                if value.isNull && step.coalesce { value = step.fill }
                if sortsDecimals.contains(index), !value.isNull, let decimal = try? Decimal(columnValue: value),
                    !decimal.isNaN
                {
                    value = .text(DecimalText.encode(decimal))
                }
                if case .integer(let integer) = value, let range = step.column.integerRange, !range.contains(integer) {
                    outOfRange[index, default: 0] += 1
                }
                row.append(value)
            }
            try table.insert(row)
        }
        if let (index, count) = outOfRange.min(by: { $0.key < $1.key }) {
            let column = schema.columns[index]
            throw SharkError.lossySchemaChange(
                entity: schema.name, column: column.name,
                reason: "\(count) stored value(s) are outside \(column.integerRange!), the range of its type")
        }
        return table
    }

    /// Every row in key order.
    func orderedRows() -> [Row] {
        var result: [Row] = []
        result.reserveCapacity(count)
        ordered.forEach(from: ordered.startPosition) { keyed in
            result.append(keyed.row)
            return true
        }
        return result
    }

    /// A conversion is allowed only when every stored value survives it unchanged
    /// (``StorageType/keeps(_:whenRetypedTo:)``, the rule every driver shares).
    private func checkConversion(of position: Int, from old: ColumnSchema, to new: ColumnSchema) throws {
        var changed = 0
        ordered.forEach(from: ordered.startPosition) { keyed in
            if !old.type.keeps(keyed.row[position], whenRetypedTo: new.type) { changed += 1 }
            return true
        }
        if changed > 0 {
            throw SharkError.lossySchemaChange(
                entity: schema.name, column: old.name,
                reason:
                    "\(changed) stored value(s) cannot be converted from \(old.type.rawValue) to \(new.type.rawValue) unchanged"
            )
        }
    }
}
