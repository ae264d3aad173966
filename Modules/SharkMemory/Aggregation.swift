@_spi(SharkDriver) import SharkORM

/// Computes an aggregate over values the way SQLite's built-in aggregates do, so the memory
/// engine and the SQL drivers agree to the type of the result.
struct Aggregation {
    let function: AggregateFunction
    private var integerSum: Int64 = 0
    private var realSum = 0.0
    private var count = 0
    /// A non-integer went into the sum: the result is a real.
    private var approximate = false
    private var overflowed = false
    private var extreme: Value?

    init(_ function: AggregateFunction) { self.function = function }

    mutating func add(_ value: Value) {
        if value.isNull { return }
        count += 1
        switch function {
        case .sum, .average:
            // SQLite's sum() reads each input as a number: numeric-looking text becomes one,
            // other text and blobs count as the number they start with (often 0) and make
            // the sum a real.
            var number = value
            if case .text(let text) = value { number = SQLiteSemantics.numeric(text) ?? value }
            if case .integer(let integer) = number {
                realSum += Double(integer)
                if !approximate && !overflowed {
                    let (sum, overflow) = integerSum.addingReportingOverflow(integer)
                    if overflow { overflowed = true } else { integerSum = sum }
                }
            } else {
                approximate = true
                realSum += number.coercedToDouble()
            }
        case .minimum:
            if let current = extreme, SQLiteSemantics.compare(value, current) >= 0 { return }
            extreme = value
        case .maximum:
            if let current = extreme, SQLiteSemantics.compare(value, current) <= 0 { return }
            extreme = value
        }
    }

    func result(describing expression: QueryExpression) throws -> Value {
        guard count > 0 else { return .null }
        switch function {
        case .sum:
            if approximate { return .real(realSum) }
            if overflowed {
                throw SharkError.invalidValue(
                    "integer overflow: the \(function.rawValue) of \(expression) does not fit in 64 bits")
            }
            return .integer(integerSum)
        case .average:
            return .real(realSum / Double(count))
        case .minimum, .maximum:
            return extreme ?? .null
        }
    }
}
