import Foundation

/// The arithmetic of queries, the same on every driver: the memory engine calls it directly,
/// the SQL drivers through SQL functions of their own (`shark_add(a, b)`…), so that no engine's
/// own rules leak into a result.
///
/// - NULL in, NULL out.
/// - Two integers give the exact integer, or ``SharkError/invalidValue(_:)`` when it leaves
///   the 64-bit range (SQLite's own `+` would turn it into an approximate real).
/// - A decimal operand (stored decimal text) makes it decimal arithmetic: both operands as
///   `Decimal`s (an integer exactly, a real as its shortest decimal form), and the exact
///   result rounded once to a `Decimal` (ties to even); an error beyond `Decimal`'s range.
/// - Otherwise reals: IEEE arithmetic; a result that is not a number (∞ − ∞) is NULL.
/// - Division or remainder by zero is an error, for every kind of number. Integer division
///   truncates; the remainder takes the dividend's sign; a real remainder is `fmod`.
///
/// Text that is no decimal and blobs are not numbers: an error. (The parser and the typed
/// API never put them in arithmetic; a hand-built expression can.)
///
/// ```swift
/// let sum = try ValueArithmetic.apply(.add, .integer(.max), .integer(1))   // throws: overflow
/// ```
package enum ValueArithmetic {
    package static func apply(_ op: ArithmeticOperator, _ lhs: Value, _ rhs: Value) throws(SharkError) -> Value {
        switch (lhs, rhs) {
        case (.null, _), (_, .null):
            return .null
        case (.integer(let a), .integer(let b)):
            return .integer(try integer(op, a, b))
        case (.real, .real), (.real, .integer), (.integer, .real):
            // An integer meeting a real is read as the nearest Double first.
            return try checkedReal(op, lhs.numericDouble, rhs.numericDouble)
        default:
            return .text(DecimalText.encode(try decimal(op, try asDecimal(lhs), try asDecimal(rhs))))
        }
    }

    /// `abs`, by the same rules: the magnitude of `Int64.min` does not exist (an error).
    package static func magnitude(_ value: Value) throws(SharkError) -> Value {
        switch value {
        case .null: return .null
        case .integer(let integer):
            guard integer != .min else {
                throw SharkError.invalidValue(
                    .integerOverflow, "integer overflow: abs(\(integer)) does not fit in 64 bits")
            }
            return .integer(integer < 0 ? -integer : integer)
        case .real(let real): return .real(Swift.abs(real))
        default:
            let decimal = try asDecimal(value)
            return .text(DecimalText.encode(decimal < 0 ? -decimal : decimal))
        }
    }

    // MARK: Integers

    package static func integer(_ op: ArithmeticOperator, _ a: Int64, _ b: Int64) throws(SharkError) -> Int64 {
        let (result, overflow): (Int64, Bool)
        switch op {
        case .add: (result, overflow) = a.addingReportingOverflow(b)
        case .subtract: (result, overflow) = a.subtractingReportingOverflow(b)
        case .multiply: (result, overflow) = a.multipliedReportingOverflow(by: b)
        case .divide:
            guard b != 0 else { throw divisionByZero(op, .integer(a)) }
            (result, overflow) = a.dividedReportingOverflow(by: b)
        case .remainder:
            guard b != 0 else { throw divisionByZero(op, .integer(a)) }
            // Int64.min % -1 is 0, which Swift reports as an overflow of the division.
            (result, overflow) = b == -1 ? (0, false) : a.remainderReportingOverflow(dividingBy: b)
        }
        guard !overflow else {
            throw SharkError.invalidValue(
                .integerOverflow, "integer overflow: \(a) \(op.rawValue) \(b) does not fit in 64 bits")
        }
        return result
    }

    // MARK: Reals

    package static func real(_ op: ArithmeticOperator, _ a: Double, _ b: Double) -> Value {
        let result: Double
        switch op {
        case .add: result = a + b
        case .subtract: result = a - b
        case .multiply: result = a * b
        case .divide: result = b == 0 ? .nan : a / b
        case .remainder: result = b == 0 ? .nan : fmod(a, b)
        }
        return result.isNaN ? .null : .real(result)
    }

    /// `real` with division by zero refused.
    package static func checkedReal(_ op: ArithmeticOperator, _ a: Double, _ b: Double) throws(SharkError) -> Value {
        if b == 0, op == .divide || op == .remainder { throw divisionByZero(op, .real(a)) }
        return real(op, a, b)
    }

    // MARK: Decimals

    /// Decimal arithmetic: the exact result, rounded once to the nearest `Decimal` (ties to
    /// even) when it has more digits than one holds, an error beyond `Decimal`'s range.
    ///
    /// Computed here rather than with Foundation's `NSDecimalAdd`… : where the exact result is
    /// a `Decimal`, as in nearly every practical case, both agree; but swift-foundation (Swift
    /// 6.3) traps multiplying two numbers below about 1e-100, and returns 0 for some
    /// products near 1e-80, which a query over stored values must never do.
    package static func decimal(_ op: ArithmeticOperator, _ a: Decimal, _ b: Decimal) throws(SharkError) -> Decimal {
        var lhs = ExactDecimal(a)
        let rhs = ExactDecimal(b)
        switch op {
        case .add:
            lhs.add(rhs)
            return try checked(lhs.rounded(), op, a, b)
        case .subtract:
            lhs.add(ExactDecimal(isNegative: !rhs.isNegative, magnitude: rhs.magnitude, exponent: rhs.exponent))
            return try checked(lhs.rounded(), op, a, b)
        case .multiply:
            return try checked(lhs.multiplied(by: rhs).rounded(), op, a, b)
        case .divide:
            guard !rhs.magnitude.isZero else { throw divisionByZero(op, .text(a.description)) }
            return try checked(lhs.divided(by: rhs), op, a, b)
        case .remainder:
            throw SharkError.invalidQuery(.unsupportedOperands, "% takes integers or reals, not decimals")
        }
    }

    /// `result`, or the overflow error naming the operation.
    private static func checked(
        _ result: @autoclosure () throws(SharkError) -> Decimal, _ op: ArithmeticOperator, _ a: Decimal, _ b: Decimal
    ) throws(SharkError) -> Decimal {
        do {
            return try result()
        } catch {
            throw SharkError.invalidValue(
                .decimalOverflow, "decimal overflow: \(a) \(op.rawValue) \(b) is beyond Decimal's range")
        }
    }

    /// A number as a `Decimal`: decimal text, an integer exactly, a real by its shortest form.
    package static func asDecimal(_ value: Value) throws(SharkError) -> Decimal {
        switch value {
        case .integer(let integer): return Decimal(integer)
        case .real(let real):
            guard real.isFinite, let decimal = Decimal(string: "\(real)", locale: Locale(identifier: "en_US_POSIX"))
            else { throw SharkError.invalidValue(.notANumber, "\(real) has no decimal value") }
            return decimal
        case .text(let text):
            guard let decimal = DecimalText.decode(text), !decimal.isNaN else {
                throw SharkError.invalidValue(.notANumber, "arithmetic on text that is not a number: \(value)")
            }
            return decimal
        case .blob: throw SharkError.invalidValue(.notANumber, "arithmetic on a blob, which is not a number")
        case .null: return 0
        }
    }

    private static func divisionByZero(_ op: ArithmeticOperator, _ dividend: Value) -> SharkError {
        SharkError.invalidValue(.divisionByZero, "division by zero: \(dividend) \(op.rawValue) 0")
    }
}

extension Value {
    /// An integer or a real as a `Double` (what real arithmetic reads).
    fileprivate var numericDouble: Double {
        switch self {
        case .integer(let integer): return Double(integer)
        case .real(let real): return real
        default: return 0
        }
    }
}
