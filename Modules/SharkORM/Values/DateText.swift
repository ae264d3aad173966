import Foundation

/// Dates written as text, read back: what a `Date` property reads from a column where another
/// program stored text rather than SharkORM's seconds (the `sqlite3` shell's
/// `datetime('now')`, GRDB's default), and what the command line reads from an argument.
///
/// The forms read, all in UTC unless they name an offset:
/// `YYYY-MM-DD`, then optionally ` HH:MM`, `:SS`, `.fraction` (a space or a `T` between date
/// and time), then optionally `Z` or `±HH:MM`. That is SQLite's own date text and ISO 8601's.
///
/// ```swift
/// DateText.date(from: "2024-06-30 15:30:00")         // 2024-06-30T15:30:00Z
/// DateText.date(from: "2024-06-30T17:30:00+02:00")   // the same instant
/// ```
@usableFromInline
package enum DateText {
    @usableFromInline
    package static func date(from text: String) -> Date? {
        var bytes = Array(text.utf8)[...]
        func number(_ digits: Int) -> Int? {
            guard bytes.count >= digits else { return nil }
            var value = 0
            for byte in bytes.prefix(digits) {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            bytes = bytes.dropFirst(digits)
            return value
        }
        func accept(_ character: Character) -> Bool {
            guard bytes.first == character.asciiValue else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard let year = number(4), accept("-"), let month = number(2), accept("-"), let day = number(2),
            (1...12).contains(month), (1...daysIn(month, of: year)).contains(day)
        else { return nil }
        var seconds = 0
        var fraction = 0.0
        if accept(" ") || accept("T") {
            guard let hour = number(2), accept(":"), let minute = number(2), hour < 24, minute < 60 else { return nil }
            seconds = hour * 3600 + minute * 60
            if accept(":") {
                guard let second = number(2), second < 60 else { return nil }
                seconds += second
                if accept(".") {
                    let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                    guard !digits.isEmpty, let value = Double("0." + String(decoding: digits, as: UTF8.self)) else {
                        return nil
                    }
                    fraction = value
                    bytes = bytes.dropFirst(digits.count)
                }
            }
            if accept("Z") {
            } else if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                bytes = bytes.dropFirst()
                guard let hours = number(2), accept(":"), let minutes = number(2), hours < 24, minutes < 60 else {
                    return nil
                }
                let offset = hours * 3600 + minutes * 60
                seconds -= sign == UInt8(ascii: "+") ? offset : -offset
            }
        }
        guard bytes.isEmpty else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        // Whole seconds since 2001-01-01 exactly, then the fraction: one rounding at most.
        let whole = days * 86_400 + seconds - 978_307_200
        return Date(timeIntervalSinceReferenceDate: Double(whole) + fraction)
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian), by Howard Hinnant's method.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
