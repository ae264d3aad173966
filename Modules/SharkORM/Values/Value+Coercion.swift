import Foundation

extension Value {
    /// SQLite's conversion of a value to an integer (`sqlite3_column_int64`).
    public func coercedToInt64() -> Int64 {
        switch self {
        case .null: return 0
        case .integer(let v): return v
        case .real(let v):
            if v.isNaN { return 0 }
            if v >= 9_223_372_036_854_775_807.0 { return .max }
            if v <= -9_223_372_036_854_775_808.0 { return .min }
            return Int64(v)
        case .text(let v): return Value.integerPrefix(of: Substring(v))
        case .blob(let v): return Value.integerPrefix(of: Substring(decoding: v, as: UTF8.self))
        }
    }

    /// SQLite's conversion of a value to a double (`sqlite3_column_double`).
    public func coercedToDouble() -> Double {
        switch self {
        case .null: return 0
        case .integer(let v): return Double(v)
        case .real(let v): return v
        case .text(let v): return Value.realPrefix(of: v)
        case .blob(let v): return Value.realPrefix(of: String(decoding: v, as: UTF8.self))
        }
    }

    /// SQLite's conversion of a value to text (`sqlite3_column_text`).
    public func coercedToText() -> String {
        switch self {
        case .null: return ""
        case .integer(let v): return String(v)
        case .real(let v): return Value.sqliteText(of: v)
        case .text(let v): return v
        case .blob(let v): return String(decoding: v, as: UTF8.self)
        }
    }

    /// SQLite's conversion of a value to bytes (`sqlite3_column_blob`).
    public func coercedToBlob() -> Data {
        switch self {
        case .null: return Data()
        case .blob(let v): return v
        default: return Data(coercedToText().utf8)
        }
    }

    private static func integerPrefix(of text: Substring) -> Int64 {
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        var end = trimmed.startIndex
        if end < trimmed.endIndex, trimmed[end] == "-" || trimmed[end] == "+" {
            end = trimmed.index(after: end)
        }
        while end < trimmed.endIndex, trimmed[end].isASCII, trimmed[end].isNumber {
            end = trimmed.index(after: end)
        }
        return Int64(trimmed[trimmed.startIndex..<end]) ?? 0
    }

    private static func realPrefix(of text: String) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Double(trimmed) { return value }
        var best = 0.0
        var prefix = ""
        for character in trimmed {
            prefix.append(character)
            if let value = Double(prefix) { best = value }
        }
        return best
    }

    /// The text SQLite gives a real: 15 significant digits, always with a decimal point.
    static func sqliteText(of value: Double) -> String {
        if value.isNaN { return "" }
        if value.isInfinite { return value < 0 ? "-Inf" : "Inf" }
        // SQLite writes −0.0 as 0.0.
        if value == 0 { return "0.0" }
        var text = String(format: "%.15g", value)
        if !text.contains(".") && !text.contains("e") && !text.contains("n") { text += ".0" }
        return text
    }
}
