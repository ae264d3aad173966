import Foundation

/// A decimal number held exactly, whatever its size: `magnitude × 10^exponent`, negative or
/// not. What exact sums and averages of `Decimal`s add up in before they are rounded, once,
/// to a `Decimal`.
///
/// ```swift
/// var total = ExactDecimal(Decimal(string: "0.1")!)
/// total.add(ExactDecimal(Decimal(string: "0.2")!))
/// print(try total.rounded())   // 0.3
/// ```
package struct ExactDecimal: Sendable, Hashable {
    package var isNegative: Bool
    package var magnitude: BigNatural
    package var exponent: Int

    package init(isNegative: Bool = false, magnitude: BigNatural, exponent: Int) {
        self.isNegative = isNegative && !magnitude.isZero
        self.magnitude = magnitude
        self.exponent = exponent
    }

    package static let zero = ExactDecimal(magnitude: BigNatural(), exponent: 0)

    package init(_ integer: Int64) {
        self.init(isNegative: integer < 0, magnitude: BigNatural(integer.magnitude), exponent: 0)
    }

    /// A Foundation `Decimal` (not NaN), exactly.
    package init(_ decimal: Decimal) {
        self = Self(plainText: decimal.description) ?? .zero
    }

    /// A `Double` as its shortest decimal form (`0.1` is one tenth), which is what it means to
    /// whoever wrote it; nil for infinities and NaN.
    package init?(_ real: Double) {
        guard real.isFinite else { return nil }
        self.init(plainText: "\(real)")
    }

    /// The number in a stored decimal's text (``DecimalText``'s sortable form or plain decimal
    /// text), or nil when the text is neither.
    package init?(storedText text: String) {
        let bytes = Array(text.utf8)
        guard let first = bytes.first else { return nil }
        switch first {
        case UInt8(ascii: "O"):
            guard bytes.count == 1 else { return nil }
            self = .zero
        case UInt8(ascii: "P"), UInt8(ascii: "N"):
            // `0.D × 10^e`: `P` or `N`, the biased exponent in three digits, then D.
            let negative = first == UInt8(ascii: "N")
            guard bytes.count >= 5, bytes[1...3].allSatisfy(Self.isDigit) else { return nil }
            let biased = bytes[1...3].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            var digits = bytes[4...]
            if negative {
                guard digits.last == UInt8(ascii: "~") else { return nil }
                digits = digits.dropLast()
            }
            guard !digits.isEmpty, digits.allSatisfy(Self.isDigit) else { return nil }
            let plain = negative ? digits.map { UInt8(ascii: "9") - ($0 - UInt8(ascii: "0")) } : Array(digits)
            let scale = negative ? 499 - biased : biased - 500
            self.init(
                isNegative: negative, magnitude: BigNatural(decimalDigits: plain), exponent: scale - plain.count)
        default:
            guard let parsed = Self(plainText: text) else { return nil }
            self = parsed
        }
    }

    /// `[+-]digits[.digits][e[+-]digits]`, and nothing else.
    package init?(plainText text: String) {
        let all = Array(text.utf8)
        var bytes = all[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        let whole = bytes.prefix(while: Self.isDigit)
        bytes = bytes.dropFirst(whole.count)
        var fraction = all[0..<0]
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fraction = bytes.prefix(while: Self.isDigit)
            bytes = bytes.dropFirst(fraction.count)
        }
        guard whole.count + fraction.count > 0 else { return nil }
        var exponent = 0
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            let digits = bytes.prefix(while: Self.isDigit)
            guard !digits.isEmpty, digits.count <= 6 else { return nil }
            exponent = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            if exponentNegative { exponent = -exponent }
            bytes = bytes.dropFirst(digits.count)
        }
        guard bytes.isEmpty else { return nil }
        self.init(
            isNegative: negative, magnitude: BigNatural(decimalDigits: Array(whole) + Array(fraction)),
            exponent: exponent - fraction.count)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// The same number with no trailing zeros in its magnitude, so that equal numbers compare
    /// equal (`10.50` and `10.5`).
    package var normalized: ExactDecimal {
        guard !magnitude.isZero else { return .zero }
        var result = self
        while true {
            var candidate = result.magnitude
            guard candidate.divide(by: 10) == 0 else { return result }
            result.magnitude = candidate
            result.exponent += 1
        }
    }

    // MARK: Arithmetic

    /// Adds `other` exactly.
    package mutating func add(_ other: ExactDecimal) {
        guard !other.magnitude.isZero else { return }
        var addend = other
        if addend.exponent < exponent {
            magnitude.multiply(byPowerOfTen: exponent - addend.exponent)
            exponent = addend.exponent
        } else if addend.exponent > exponent {
            addend.magnitude.multiply(byPowerOfTen: addend.exponent - exponent)
        }
        if magnitude.isZero {
            isNegative = addend.isNegative
            magnitude = addend.magnitude
        } else if isNegative == addend.isNegative {
            magnitude.add(addend.magnitude)
        } else if magnitude < addend.magnitude {
            var result = addend.magnitude
            result.subtract(magnitude)
            magnitude = result
            isNegative = addend.isNegative
        } else {
            magnitude.subtract(addend.magnitude)
            if magnitude.isZero { isNegative = false }
        }
    }

    /// The exact product.
    package func multiplied(by other: ExactDecimal) -> ExactDecimal {
        ExactDecimal(
            isNegative: isNegative != other.isNegative, magnitude: magnitude.multiplied(by: other.magnitude),
            exponent: exponent + other.exponent)
    }

    /// This number divided by a non-zero `divisor`, rounded to a `Decimal` (half to even).
    package func divided(by divisor: ExactDecimal) throws(SharkError) -> Decimal {
        // Scaled so the quotient has more digits than a Decimal keeps; the remainder is the
        // sticky part below them.
        let extra = max(0, 42 - magnitude.decimalDigits.count + divisor.magnitude.decimalDigits.count)
        var scaled = magnitude
        scaled.multiply(byPowerOfTen: extra)
        let (quotient, remainder) = scaled.quotientAndRemainder(dividingBy: divisor.magnitude)
        return try ExactDecimal(
            isNegative: isNegative != divisor.isNegative, magnitude: quotient,
            exponent: exponent - divisor.exponent - extra
        ).rounded(sticky: !remainder.isZero)
    }

    /// This number divided by `count`, rounded to a `Decimal` (half to even).
    package func divided(by count: Int) throws(SharkError) -> Decimal {
        guard count > 1 else { return try rounded() }
        // Enough digits for the quotient to hold more than a Decimal keeps, then the rest as
        // a sticky flag, so that one rounding gives the nearest Decimal.
        let extra = max(0, 42 - magnitude.decimalDigits.count + String(count).count)
        var scaled = magnitude
        scaled.multiply(byPowerOfTen: extra)
        let remainder = scaled.divide(by: UInt64(count))
        return try Self(isNegative: isNegative, magnitude: scaled, exponent: exponent - extra)
            .rounded(sticky: remainder != 0)
    }

    // MARK: Rounding

    /// The largest mantissa a `Decimal` holds (2^128 − 1): 39 digits, but not every 39-digit
    /// number.
    private static let largestMantissa = "340282366920938463463374607431768211455"

    /// The nearest `Decimal` (ties to even), or ``SharkError/invalidValue(_:)`` when the
    /// number is beyond `Decimal`'s range. `sticky`: something non-zero lies below the last
    /// digit (a quotient's remainder), so a tie is not one.
    package func rounded(sticky: Bool = false) throws(SharkError) -> Decimal {
        let all = Array(magnitude.decimalDigits.utf8)
        // Keep what a mantissa holds (39 digits when they fit, else 38) and no exponent below
        // Decimal's smallest: one rounding from the exact digits either way.
        var keep = min(all.count, 39)
        keep = min(keep, all.count - max(0, -128 - exponent))
        var digits: [UInt8] = []
        var exponent = 0
        repeat {
            digits = Self.round(all, keeping: keep, sticky: sticky)
            exponent = self.exponent + all.count - keep
            while digits.count > 1, digits.last == UInt8(ascii: "0") {
                digits.removeLast()
                exponent += 1
            }
            keep -= 1
        } while !Self.fitsMantissa(digits)
        if digits.allSatisfy({ $0 == UInt8(ascii: "0") }) { return 0 }
        // An exponent above Decimal's largest: move it into the mantissa while it fits (39
        // digits when they stay below 2^128, as 1.6e165 needs).
        while exponent > 127, Self.fitsMantissa(digits + [UInt8(ascii: "0")]) {
            digits.append(UInt8(ascii: "0"))
            exponent -= 1
        }
        guard exponent <= 127 else {
            throw SharkError.invalidValue(
                .decimalOverflow, "the result is beyond Decimal's range (its largest is about 3.4e165)")
        }
        let text = String(decoding: digits, as: UTF8.self) + "e" + String(exponent)
        guard let magnitude = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw SharkError.invalidValue(.decimalOverflow, "the result is beyond Decimal's range")
        }
        return isNegative ? -magnitude : magnitude
    }

    /// The first `keep` of `digits`, rounded half to even by the ones after them (and
    /// `sticky`, something non-zero below all of them); `keep` may be 0 or less, when every
    /// digit goes. A carry can add a digit at the front (999 → 1000).
    private static func round(_ digits: [UInt8], keeping keep: Int, sticky: Bool) -> [UInt8] {
        let zero = UInt8(ascii: "0")
        guard keep < digits.count || sticky else { return digits }
        let kept = Array(digits.prefix(max(0, keep)))
        let roundDigit = keep >= 0 && keep < digits.count ? digits[keep] : zero
        let belowRound = keep + 1 < digits.count && digits[max(0, keep + 1)...].contains { $0 != zero }
        let below = belowRound || sticky || (keep < 0 && digits.contains { $0 != zero })
        let lastOdd = kept.last.map { ($0 - zero) % 2 == 1 } ?? false
        let up = roundDigit > UInt8(ascii: "5") || (roundDigit == UInt8(ascii: "5") && (below || lastOdd))
        guard up else { return kept.isEmpty ? [zero] : kept }
        return increment(kept)
    }

    private static func fitsMantissa(_ digits: [UInt8]) -> Bool {
        digits.count < 39 || (digits.count == 39 && String(decoding: digits, as: UTF8.self) <= largestMantissa)
    }

    /// The decimal digits plus one.
    private static func increment(_ digits: [UInt8]) -> [UInt8] {
        var result = digits
        var index = result.count - 1
        while index >= 0 {
            if result[index] == UInt8(ascii: "9") {
                result[index] = UInt8(ascii: "0")
                index -= 1
            } else {
                result[index] += 1
                return result
            }
        }
        return [UInt8(ascii: "1")] + result
    }
}
