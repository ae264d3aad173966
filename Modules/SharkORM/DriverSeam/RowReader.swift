import Foundation

/// Reads the columns of the current row by position, straight from the driver's storage.
///
/// Generated model decoders call these methods with fixed column indexes, so fetching an
/// object allocates nothing but the object and its own property values: no dictionary, no
/// array of ``Value``s. A SQL driver implements it over a prepared statement; the memory
/// driver over its stored row.
///
/// Conversions between storage classes are the core's (``Value/coercedToInt64()`` and its
/// siblings, which match SQLite's `sqlite3_column_*`), so every driver decodes a value the
/// same way; in particular NULL reads as 0, 0.0, "" and empty data.
///
/// Class-bound, like ``RowWriter``: a driver keeps one reader per statement and moves it from
/// row to row, and generated code calls it through `any RowReader` without unboxing a value
/// for every column.
public protocol RowReader: AnyObject {
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

    // Strict reads: what model properties read. A value of another storage class than the
    // property's (text another program wrote in an integer column) is an error naming the
    // column, never converted into something else. Defaults are built on `value(at:)`; a
    // driver overrides them with cheaper checks.

    /// The column's integer; anything else (NULL included) is ``SharkError/decoding(reason:)``.
    func integer(at index: Int32) throws(SharkError) -> Int64
    /// The column's real, or its integer as the nearest real; NULL is NaN; anything else is an
    /// error.
    func real(at index: Int32) throws(SharkError) -> Double
    /// The column's text; anything else is an error.
    func string(at index: Int32) throws(SharkError) -> String
    /// The column's blob; anything else is an error.
    func bytes(at index: Int32) throws(SharkError) -> Data
    /// The column, for messages: "Person.age" where the reader knows it, "column 2" otherwise.
    func columnDescription(at index: Int32) -> String
}

extension RowReader {
    public func integer(at index: Int32) throws(SharkError) -> Int64 {
        let value = value(at: index)
        guard case .integer(let integer) = value else { throw mismatch(value, at: index, expected: "an integer") }
        return integer
    }

    public func real(at index: Int32) throws(SharkError) -> Double {
        switch value(at: index) {
        case .real(let real): return real
        case .integer(let integer): return Double(integer)
        case .null: return .nan
        case let other: throw mismatch(other, at: index, expected: "a number")
        }
    }

    public func string(at index: Int32) throws(SharkError) -> String {
        let value = value(at: index)
        guard case .text(let text) = value else { throw mismatch(value, at: index, expected: "text") }
        return text
    }

    public func bytes(at index: Int32) throws(SharkError) -> Data {
        let value = value(at: index)
        guard case .blob(let bytes) = value else { throw mismatch(value, at: index, expected: "a blob") }
        return bytes
    }

    public func columnDescription(at index: Int32) -> String { "column \(index)" }

    /// The error for a stored value that is not what the property reads.
    public func mismatch(_ value: Value, at index: Int32, expected: String) -> SharkError {
        let found: String
        switch value {
        case .null: found = "NULL"
        case .integer(let integer): found = "an integer (\(integer))"
        case .real(let real): found = "a real (\(real))"
        case .text(let text): found = "text (\(Value.text(String(text.prefix(40)))))"
        case .blob(let bytes): found = "a blob of \(bytes.count) bytes"
        }
        return SharkError.decoding(
            .wrongStorageClass, "\(columnDescription(at: index)) holds \(found), not \(expected)")
    }
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

/// A row held as an array of values: what callers without the app's model types write (see
/// ``RowSource``).
@_spi(SharkDriver) public struct ValueRow: Sendable, Hashable {
    public var values: [Value]

    public init(count: Int) { values = Array(repeating: .null, count: count) }
    public init(_ values: [Value]) { self.values = values }
}

/// Reads rows held as arrays of values: what a driver that keeps rows as values (the memory
/// engine) hands to generated decoders, one reader moved from row to row.
@_spi(SharkDriver) public final class ValueRowReader: RowReader {
    /// The current row. Unchecked: read once per column of every row decoded, and never
    /// accessed for longer than one read or one assignment.
    @exclusivity(unchecked) public var values: [Value]

    public init(_ values: [Value] = []) { self.values = values }

    public func isNull(at index: Int32) -> Bool { values[Int(index)].isNull }
    public func int64(at index: Int32) -> Int64 { values[Int(index)].coercedToInt64() }
    public func double(at index: Int32) -> Double { values[Int(index)].coercedToDouble() }
    public func text(at index: Int32) -> String { values[Int(index)].coercedToText() }
    public func blob(at index: Int32) -> Data { values[Int(index)].coercedToBlob() }
    public func value(at index: Int32) -> Value { values[Int(index)] }

    /// The entity and column names, for messages (set by the driver that reads).
    public var columnNames: (entity: String, columns: [String])?

    public func integer(at index: Int32) throws(SharkError) -> Int64 {
        if case .integer(let integer) = values[Int(index)] { return integer }
        throw mismatch(values[Int(index)], at: index, expected: "an integer")
    }

    public func string(at index: Int32) throws(SharkError) -> String {
        if case .text(let text) = values[Int(index)] { return text }
        throw mismatch(values[Int(index)], at: index, expected: "text")
    }

    public func columnDescription(at index: Int32) -> String {
        guard let columnNames, Int(index) < columnNames.columns.count else { return "column \(index)" }
        return columnNames.entity + "." + columnNames.columns[Int(index)]
    }
}

/// Collects the values a row source writes, by position: a row as values, for a driver that
/// sends values (a network database's) or callers that need them whole.
@_spi(SharkDriver) public final class ValueCollector: RowWriter {
    public var values: [Value]

    public init(count: Int) { values = Array(repeating: .null, count: count) }

    public func writeNull(at index: Int32) { values[Int(index)] = .null }
    public func write(_ value: Int64, at index: Int32) { values[Int(index)] = .integer(value) }
    public func write(_ value: Double, at index: Int32) { values[Int(index)] = .real(value) }
    public func write(_ value: String, at index: Int32) { values[Int(index)] = .text(value) }
    public func write(_ value: Data, at index: Int32) { values[Int(index)] = .blob(value) }
}
