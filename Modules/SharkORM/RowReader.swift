import Foundation

/// Reads the columns of the current row by position, straight from the driver's storage.
///
/// Generated model decoders call these methods with fixed column indexes, so fetching an
/// object allocates nothing but the object and its own property values: no dictionary, no
/// array of ``Value``s. A SQL driver implements it over a prepared statement; the memory
/// driver over its stored row.
///
/// Conversions between storage classes follow SQLite's rules, so every driver decodes a
/// value the same way; in particular NULL reads as 0, 0.0, "" and empty data.
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
}
