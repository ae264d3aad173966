import Foundation

/// Reads the columns of the current row by position, straight from the driver's storage.
///
/// Generated model decoders call these methods with fixed column indexes, so fetching an
/// object allocates nothing but the object and its own property values: no dictionary, no
/// array of ``Value``s. A SQL driver implements it over a prepared statement; the memory
/// driver over its stored row.
///
/// Conversions between storage classes follow SQLite's rules, so every driver decodes a
/// value the same way.
public protocol RowReader {
    /// Whether the column holds NULL.
    func isNull(at index: Int32) -> Bool
    /// The column as a 64-bit integer.
    func int64(at index: Int32) -> Int64
    /// The column as a double.
    func double(at index: Int32) -> Double
    /// The column as a string.
    func text(at index: Int32) -> String
    /// The column as bytes.
    func blob(at index: Int32) -> Data
    /// The column as a ``Value``, for the rare callers that need its storage class.
    func value(at index: Int32) -> Value
}

/// Receives the columns of a row by position, straight into the driver's storage.
///
/// Class-bound, so generated code can take it as `any RowWriter` without boxing: the hot
/// paths are non-generic over the writer, which lets the compiler specialize them fully for
/// each property type.
public protocol RowWriter: AnyObject {
    func writeNull(at index: Int32)
    func write(_ value: Int64, at index: Int32)
    func write(_ value: Double, at index: Int32)
    func write(_ value: String, at index: Int32)
    func write(_ value: Data, at index: Int32)
}

extension RowWriter {
    /// Writes a ``Value`` of any storage class.
    public func write(_ value: Value, at index: Int32) {
        switch value {
        case .null: writeNull(at: index)
        case .integer(let v): write(v, at: index)
        case .real(let v): write(v, at: index)
        case .text(let v): write(v, at: index)
        case .blob(let v): write(v, at: index)
        }
    }
}

/// A row held as an array of values: what a driver that keeps rows as values (the memory
/// engine) hands to generated decoders.
public struct ValueRow: RowReader, Sendable, Hashable {
    public var values: [Value]

    public init(count: Int) { values = Array(repeating: .null, count: count) }
    public init(_ values: [Value]) { self.values = values }

    public func isNull(at index: Int32) -> Bool { values[Int(index)].isNull }
    public func int64(at index: Int32) -> Int64 { values[Int(index)].coercedToInt64() }
    public func double(at index: Int32) -> Double { values[Int(index)].coercedToDouble() }
    public func text(at index: Int32) -> String { values[Int(index)].coercedToText() }
    public func blob(at index: Int32) -> Data { values[Int(index)].coercedToBlob() }
    public func value(at index: Int32) -> Value { values[Int(index)] }
}

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
        var text = String(format: "%.15g", value)
        if !text.contains(".") && !text.contains("e") && !text.contains("n") { text += ".0" }
        return text
    }
}
