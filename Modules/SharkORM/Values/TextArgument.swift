import Foundation

/// A predicate argument given as text (on a command line, say) and read as the type of the
/// property it is compared with. See ``PredicateParser/predicate(_:textArguments:)``.
struct TextArgument {
    let text: String

    init(_ text: String) { self.text = text }

    /// The value of an argument compared with no property: an integer or a finite real when
    /// the text reads as one, the text otherwise.
    static func inferredValue(of text: String) -> Value {
        if let integer = Int64(text) { return .integer(integer) }
        if let real = Double(text), real.isFinite, text.first?.isLetter != true { return .real(real) }
        return .text(text)
    }

    /// `text` as a value of `column`'s logical type (or, without one, its storage class); nil
    /// when it does not read as one.
    static func value(of text: String, for column: ColumnSchema) -> Value? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch column.logicalType {
        case .bool:
            switch trimmed.lowercased() {
            case "true", "yes", "1": return .integer(1)
            case "false", "no", "0": return .integer(0)
            default: return nil
            }
        case .integer: return Int64(trimmed).map(Value.integer)
        case .unsignedInteger:
            // Above Int64.max, as the model compares it: a real beyond every stored value.
            return UInt64(trimmed).map(\.columnValue)
        case .real:
            // A Float property's literal is that Float, as the model compares it.
            guard column.bitWidth == 32 else { return finiteReal(trimmed) }
            return finiteReal(trimmed).map { .real(Double(Float($0.coercedToDouble()))) }
        case .date: return date(trimmed).map { .real($0.timeIntervalSinceReferenceDate) } ?? finiteReal(trimmed)
        case .uuid: return UUID(uuidString: trimmed).map { .blob($0.bytes) }
        case .data: return blob(trimmed)
        case .decimal, .sortableDecimal:
            // A number and nothing else; the comparison then uses the column's own form.
            // …held exactly: more digits than a Decimal keeps is refused, not rounded.
            guard let first = trimmed.first, first.isNumber || first == "-" || first == "+" || first == ".",
                let decimal = DecimalText.decode(trimmed), !decimal.isNaN,
                ExactDecimal(storedText: trimmed)?.normalized == ExactDecimal(decimal).normalized
            else { return nil }
            return column.logicalType == .sortableDecimal ? .text(DecimalText.encode(decimal)) : .text("\(decimal)")
        case .string, .url, .json: return .text(text)
        case nil:
            switch column.type {
            case .integer: return Int64(trimmed).map(Value.integer)
            case .real: return finiteReal(trimmed)
            case .text: return .text(text)
            case .blob: return blob(trimmed)
            }
        }
    }

    /// What `value(of:for:)` expects for `column`, for the error when the text is not that.
    static func expectation(for column: ColumnSchema) -> String {
        let kind: String
        switch column.logicalType {
        case .bool: kind = "true or false"
        case .integer: kind = "an integer"
        case .unsignedInteger: kind = "an unsigned integer"
        case .real: kind = "a number"
        case .date: kind = "a date (2024-05-01, 2024-05-01T09:30:00Z) or seconds since 2001"
        case .uuid: kind = "a UUID"
        case .data: kind = "hexadecimal bytes"
        case .decimal, .sortableDecimal: kind = "a decimal number"
        case .string, .url, .json: kind = "text"
        case nil:
            switch column.type {
            case .integer: kind = "an integer"
            case .real: kind = "a number"
            case .text: kind = "text"
            case .blob: kind = "hexadecimal bytes"
            }
        }
        return "\(kind) for \(column.name)"
    }

    private static func finiteReal(_ text: String) -> Value? {
        guard let real = Double(text), real.isFinite else { return nil }
        return .real(real)
    }

    /// An ISO 8601 date (midnight UTC) or date and time with a zone, seconds optionally
    /// fractional.
    private static func date(_ text: String) -> Date? { DateText.date(from: text) }

    /// Hexadecimal digits, optionally as `x'…'` or after `0x`.
    private static func blob(_ text: String) -> Value? {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            digits = digits.dropFirst(2)
        } else if (digits.hasPrefix("x'") || digits.hasPrefix("X'")) && digits.hasSuffix("'") && digits.count >= 3 {
            digits = digits.dropFirst(2).dropLast()
        }
        guard let bytes = bytes(fromHexadecimal: digits) else { return nil }
        return .blob(Data(bytes))
    }
}
