@_spi(SharkDriver) import SharkORM

/// Computes an aggregate over values as the SQL drivers do: sums and averages through the
/// core's `ExactSum` (the SQL drivers call the same from `shark_sum` and `shark_avg`), `min`
/// and `max` in SQLite's order.
struct Aggregation {
    let function: AggregateFunction
    private var sum = ExactSum()
    private var extreme: Value?

    init(_ function: AggregateFunction) { self.function = function }

    mutating func add(_ value: Value) throws {
        if value.isNull { return }
        switch function {
        case .sum, .average:
            try sum.add(value)
        case .minimum:
            if let current = extreme, SQLiteSemantics.compare(value, current) >= 0 { return }
            extreme = value
        case .maximum:
            if let current = extreme, SQLiteSemantics.compare(value, current) <= 0 { return }
            extreme = value
        }
    }

    func result() throws -> Value {
        switch function {
        case .sum: return try sum.sum()
        case .average: return try sum.average()
        case .minimum, .maximum: return extreme ?? .null
        }
    }
}
