import Foundation

/// How a `Decimal` is stored: as text that sorts, byte by byte, as the numbers do, and reads
/// back exactly. Plain decimal text ("10.5") sorts as text, so `10.5` came before `9`; this
/// form makes comparisons, ordering, `min` and `max` numeric on every driver, with no
/// rounding through `Double`.
///
/// A number is written as `0.D × 10^e`, with `D` its significant digits (no leading or
/// trailing zeros):
///
/// - zero is `O`;
/// - a positive number is `P`, then `e + 500` in three digits, then `D`: a larger exponent
///   sorts later, and for one exponent the digits compare as the numbers do;
/// - a negative number is `N`, then `499 - e` in three digits, then the nines' complement of
///   `D` and a `~` (which sorts after every digit), so that everything reverses.
///
/// ```swift
/// DecimalText.encode(Decimal(string: "10.5")!)   // "P502105"
/// DecimalText.encode(-1)                         // "N4988~"
/// ```
///
/// Text that does not start with `N`, `O` or `P` is read as plain decimal text, the form
/// stores used before: such columns are converted by the schema migration (see
/// ``LogicalType/sortableDecimal``).
public enum DecimalText {
    /// The sortable text of `value` (which must not be NaN).
    public static func encode(_ value: Decimal) -> String {
        let text = value.description
        var negative = false
        var integer = Substring(text)
        if integer.hasPrefix("-") {
            negative = true
            integer = integer.dropFirst()
        }
        var fraction = Substring("")
        if let point = integer.firstIndex(of: ".") {
            fraction = integer[integer.index(after: point)...]
            integer = integer[..<point]
        }
        // All the digits, and where the point sits in them.
        let all = Array(integer.utf8) + Array(fraction.utf8)
        var exponent = integer.utf8.count
        var start = 0
        while start < all.count, all[start] == UInt8(ascii: "0") {
            start += 1
            exponent -= 1
        }
        var end = all.count
        while end > start, all[end - 1] == UInt8(ascii: "0") { end -= 1 }
        guard start < end else { return "O" }
        let digits = all[start..<end]
        if !negative {
            return "P" + threeDigits(exponent + 500) + String(decoding: digits, as: UTF8.self)
        }
        let complement = digits.map { UInt8(ascii: "9") - ($0 - UInt8(ascii: "0")) }
        return "N" + threeDigits(499 - exponent) + String(decoding: complement, as: UTF8.self) + "~"
    }

    /// The number `text` holds, in this form or as plain decimal text; nil when it is neither.
    public static func decode(_ text: String) -> Decimal? {
        guard let first = text.utf8.first else { return nil }
        switch first {
        case UInt8(ascii: "O"):
            return text == "O" ? 0 : nil
        case UInt8(ascii: "P"), UInt8(ascii: "N"):
            let bytes = Array(text.utf8)
            let negative = first == UInt8(ascii: "N")
            guard bytes.count >= 5, let biased = Int(String(decoding: bytes[1..<4], as: UTF8.self)) else { return nil }
            var digits = Array(bytes[4...])
            if negative {
                guard digits.last == UInt8(ascii: "~") else { return nil }
                digits.removeLast()
            }
            guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                return nil
            }
            if negative { digits = digits.map { UInt8(ascii: "9") - ($0 - UInt8(ascii: "0")) } }
            let exponent = negative ? 499 - biased : biased - 500
            return plain(String(decoding: digits, as: UTF8.self), exponent: exponent, negative: negative)
        default:
            // Foundation reads the longest number a text starts with ("1.2.3" as 1.2): only
            // text that is one number, and nothing else, is taken.
            guard isPlainNumber(text) else { return nil }
            return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        }
    }

    /// `[+-]digits[.digits][e[+-]digits]`, at least one digit before the exponent.
    private static func isPlainNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                bytes = bytes.dropFirst()
            }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// `0.digits × 10^exponent` as a Decimal, built from text so that no digit is rounded.
    private static func plain(_ digits: String, exponent: Int, negative: Bool) -> Decimal? {
        var text: String
        if exponent >= digits.count {
            text = digits + String(repeating: "0", count: exponent - digits.count)
        } else if exponent > 0 {
            let point = digits.index(digits.startIndex, offsetBy: exponent)
            text = digits[..<point] + "." + digits[point...]
        } else {
            text = "0." + String(repeating: "0", count: -exponent) + digits
        }
        if negative { text = "-" + text }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    private static func threeDigits(_ value: Int) -> String {
        let text = String(min(999, max(0, value)))
        return String(repeating: "0", count: 3 - text.count) + text
    }
}
