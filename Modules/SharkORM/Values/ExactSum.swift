import Foundation

/// The sum and average every driver computes, exactly, in any order: the accumulator behind
/// the `sum` and `avg` aggregates of the memory engine and of the SQL drivers (which call it
/// from SQLite as a function of their own).
///
/// - Integers add up exactly; the sum is an integer, or ``SharkError/invalidValue(_:)`` when
///   it leaves the 64-bit range.
/// - With a real among them, every value adds up exactly (each `Double` is a whole multiple of
///   2^-1074) and the result is rounded once to the nearest `Double`, ties to even: the same
///   answer whatever the row order, unlike adding doubles one by one.
/// - With a decimal among them (stored decimal text), the exact sum is rounded once to the
///   nearest `Decimal` (ties to even); beyond `Decimal`'s range it is an error.
/// - An average is the exact sum divided by the count, rounded once the same way.
///
/// NULLs are skipped; with no values the result is NULL.
///
/// ```swift
/// var sum = ExactSum()
/// for value: Value in [.real(0.1), .real(0.2), .real(-0.3)] { try sum.add(value) }
/// print(try sum.sum())   // 2.7755575615628914e-17, the exact sum rounded once
/// ```
package struct ExactSum: Sendable {
    package private(set) var count = 0
    /// Integers, while their sum fits in 64 bits.
    private var integers: Int64 = 0
    /// Integers past that: the positive and the negative ones apart.
    private var wideIntegers: (positive: BigNatural, negative: BigNatural)?
    /// Reals, in units of 2^-1074 (the smallest subnormal), positive and negative apart.
    private var reals: (positive: BigNatural, negative: BigNatural)?
    private var positiveInfinity = false
    private var negativeInfinity = false
    /// Decimals, exactly.
    private var decimals: ExactDecimal?

    package init() {}

    /// Adds one value; throws for a value that is not a number (text that is no decimal, a
    /// blob).
    package mutating func add(_ value: Value) throws(SharkError) {
        switch value {
        case .null:
            return
        case .integer(let integer):
            add(integer)
        case .real(let real):
            add(real)
        case .text(let text):
            guard let decimal = ExactDecimal(storedText: text) else {
                throw SharkError.invalidValue(
                    .notANumber, "a sum or average met text that is not a number: \(Value.text(text))")
            }
            add(decimal)
        case .blob:
            throw SharkError.invalidValue(.notANumber, "a sum or average met a blob, which is not a number")
        }
    }

    package mutating func add(_ integer: Int64) {
        count += 1
        if wideIntegers == nil {
            let (sum, overflow) = integers.addingReportingOverflow(integer)
            if !overflow {
                integers = sum
                return
            }
            wideIntegers = (BigNatural(), BigNatural())
            Self.add(integers, to: &wideIntegers!)
            integers = 0
        }
        Self.add(integer, to: &wideIntegers!)
    }

    package mutating func add(_ real: Double) {
        count += 1
        guard real.isFinite else {
            if real == .infinity { positiveInfinity = true } else if real == -.infinity { negativeInfinity = true }
            return
        }
        if reals == nil { reals = (BigNatural(), BigNatural()) }
        // A normal double is (2^52 + fraction) × 2^(biased exponent − 1075): in units of
        // 2^-1074, the significand shifted left by the biased exponent less one.
        let biased = Int(real.exponentBitPattern)
        let significand = biased == 0 ? real.significandBitPattern : real.significandBitPattern | (1 << 52)
        let shift = biased == 0 ? 0 : biased - 1
        if real.sign == .minus {
            reals!.negative.add(significand, shiftedLeftBy: shift)
        } else {
            reals!.positive.add(significand, shiftedLeftBy: shift)
        }
    }

    package mutating func add(_ decimal: ExactDecimal) {
        count += 1
        if decimals == nil { decimals = .zero }
        decimals!.add(decimal)
    }

    private static func add(_ integer: Int64, to parts: inout (positive: BigNatural, negative: BigNatural)) {
        if integer < 0 { parts.negative.add(integer.magnitude) } else { parts.positive.add(UInt64(integer)) }
    }

    // MARK: Results

    /// The sum: NULL without values, else an integer, a real or a decimal's stored text.
    package func sum() throws(SharkError) -> Value {
        guard count > 0 else { return .null }
        if let decimal = try exactDecimal() { return .text(DecimalText.encode(try decimal.rounded())) }
        if reals != nil || positiveInfinity || negativeInfinity {
            guard let (negative, magnitude) = exactReal() else { return infinity }
            return .real(Self.double(negative: negative, magnitude: magnitude, scale: 1074))
        }
        guard let wide = wideIntegers else { return .integer(integers) }
        let (negative, magnitude) = Self.difference(wide)
        if let word = magnitude.word {
            if !negative, word <= UInt64(Int64.max) { return .integer(Int64(word)) }
            if negative, word <= UInt64(Int64.max) + 1 { return .integer(Int64(truncatingIfNeeded: 0 &- word)) }
        }
        throw SharkError.invalidValue(.integerOverflow, "integer overflow: the sum does not fit in 64 bits")
    }

    /// The average: NULL without values, else a real, or a decimal's stored text when a
    /// decimal was among the values.
    package func average() throws(SharkError) -> Value {
        guard count > 0 else { return .null }
        if let decimal = try exactDecimal() { return .text(DecimalText.encode(try decimal.divided(by: count))) }
        let (negative, magnitude, scale): (Bool, BigNatural, Int)
        if reals != nil || positiveInfinity || negativeInfinity {
            guard let exact = exactReal() else { return infinity }
            (negative, magnitude, scale) = (exact.negative, exact.magnitude, 1074)
        } else {
            let exact = Self.difference(wideIntegers ?? Self.parts(of: integers))
            (negative, magnitude, scale) = (exact.negative, exact.magnitude, 0)
        }
        // 64 more bits of quotient, and whether anything remains below them.
        var quotient = magnitude.shiftedLeft(by: 64)
        let remainder = quotient.divide(by: UInt64(count))
        return .real(Self.double(negative: negative, magnitude: quotient, scale: scale + 64, sticky: remainder != 0))
    }

    /// ±∞ (or NULL for both: their sum is not a number).
    private var infinity: Value {
        if positiveInfinity && negativeInfinity { return .null }
        return .real(positiveInfinity ? .infinity : -.infinity)
    }

    /// Every value as one exact decimal, when a decimal was among them.
    private func exactDecimal() throws(SharkError) -> ExactDecimal? {
        guard var total = decimals else { return nil }
        if positiveInfinity || negativeInfinity {
            throw SharkError.invalidValue(.notANumber, "a decimal sum or average met an infinite real")
        }
        if let wide = wideIntegers {
            let (negative, magnitude) = Self.difference(wide)
            total.add(ExactDecimal(isNegative: negative, magnitude: magnitude, exponent: 0))
        } else {
            total.add(ExactDecimal(integers))
        }
        if let reals {
            // Reals met among decimals count as their shortest decimal form; they are exact
            // only in binary, which no decimal sum can use. (Typed queries never mix them.)
            let (negative, magnitude) = Self.difference(reals)
            let real = Self.double(negative: negative, magnitude: magnitude, scale: 1074)
            if let decimal = ExactDecimal(real) { total.add(decimal) }
        }
        return total
    }

    /// Every value as one exact real in units of 2^-1074; nil when an infinity decides it.
    private func exactReal() -> (negative: Bool, magnitude: BigNatural)? {
        if positiveInfinity || negativeInfinity { return nil }
        var parts = reals ?? (BigNatural(), BigNatural())
        let integerParts = wideIntegers ?? Self.parts(of: integers)
        parts.positive.add(integerParts.positive.shiftedLeft(by: 1074))
        parts.negative.add(integerParts.negative.shiftedLeft(by: 1074))
        return Self.difference(parts)
    }

    private static func parts(of integer: Int64) -> (positive: BigNatural, negative: BigNatural) {
        var parts = (positive: BigNatural(), negative: BigNatural())
        add(integer, to: &parts)
        return parts
    }

    private static func difference(_ parts: (positive: BigNatural, negative: BigNatural)) -> (
        negative: Bool, magnitude: BigNatural
    ) {
        if parts.positive < parts.negative {
            var magnitude = parts.negative
            magnitude.subtract(parts.positive)
            return (true, magnitude)
        }
        var magnitude = parts.positive
        magnitude.subtract(parts.negative)
        return (false, magnitude)
    }

    /// `magnitude × 2^-scale` rounded to the nearest `Double`, ties to even; `sticky`: a
    /// non-zero remainder lies below `magnitude`'s last bit.
    static func double(negative: Bool, magnitude: BigNatural, scale: Int, sticky: Bool = false) -> Double {
        let width = magnitude.bitWidth
        guard width > 0 else { return sticky ? (negative ? -0.0 : 0.0) * 0 : 0 }
        // The exponent of the result's last bit: 53 bits of precision, but never below the
        // smallest subnormal's.
        let lastBit = max(width - scale - 53, -1074)
        let dropped = lastBit + scale
        var significand: UInt64
        if dropped <= 0 {
            significand = (magnitude.word ?? 0) << UInt64(-dropped)
        } else {
            significand = magnitude.shiftedRight(by: dropped).word ?? 0
            let half = magnitude.bit(dropped - 1)
            let below = sticky || magnitude.hasBits(below: dropped - 1)
            if half && (below || significand & 1 == 1) { significand += 1 }
        }
        let result = Double(sign: negative ? .minus : .plus, exponent: lastBit, significand: Double(significand))
        return result == 0 ? 0 : result
    }
}
