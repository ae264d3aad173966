import Foundation

/// A type stored natively in one column: the built-in property types of a model.
///
/// Bool, every fixed-width integer, Float, Double, String, Data, Date, UUID, URL and Decimal
/// conform, and so do optionals of them. Generated model code reads and writes these types
/// straight from the driver's row (see ``RowReader``); ``columnValue`` and
/// ``init(columnValue:)`` are the slower path used for predicate arguments and defaults.
///
/// Storage choices, chosen so that every value round-trips exactly:
/// - `Date` is a REAL of seconds since 2001-01-01 (`timeIntervalSinceReferenceDate`), which
///   keeps every bit of the date; seconds since 1970 would lose the lowest one.
/// - `UInt64` and `UInt` are stored as their `Int64` bit pattern: exact, but values above
///   `Int64.max` sort below zero in the database.
/// - `UUID` is a 16-byte BLOB; `URL` is TEXT; `Decimal` is TEXT that sorts as the numbers do
///   (``DecimalText``), so comparisons, ordering, `min` and `max` are numeric and exact.
/// - A `Double.nan` or `Float.nan` is stored as NULL (SQLite does the same); a non-optional
///   floating-point column reads NULL back as NaN, an optional one as nil.
/// - What has no stored form that reads back is refused when written, with
///   ``SharkError/invalidValue(_:)``: `Decimal.nan`, and a `Date` whose time interval is NaN.
///
/// ```swift
/// let value = 42.columnValue            // .integer(42)
/// let back = try Int(columnValue: value) // 42
/// ```
public protocol ColumnConvertible {
    /// The storage class of the column.
    static var storageType: StorageType { get }
    /// What the column holds, recorded with the schema for readers without the model.
    static var logicalType: LogicalType { get }
    /// Whether NULL is a valid stored value (true for optionals).
    static var isNullable: Bool { get }
    /// Reads a value from the column at `index` of `row`.
    static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Self
    /// Writes this value into the column at `index` of `row`.
    func write(to row: any RowWriter, at index: Int32) throws(SharkError)
    /// This value as a ``Value``.
    var columnValue: Value { get }
    /// Decodes a value from a ``Value``.
    init(columnValue: Value) throws(SharkError)
}

extension ColumnConvertible {
    public static var isNullable: Bool { false }

    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        row.write(columnValue, at: index)
    }

    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Self {
        try Self(columnValue: row.value(at: index))
    }
}

// MARK: - Integers

extension Int64: ColumnConvertible {
    public static var storageType: StorageType { .integer }
    public static var logicalType: LogicalType { .integer }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Int64 {
        row.int64(at: index)
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        row.write(self, at: index)
    }
    @inlinable
    public var columnValue: Value { .integer(self) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) { self = columnValue.coercedToInt64() }
}

/// The fixed-width integers other than `Int64`, stored as INTEGER and range-checked on read.
public protocol _SharkNarrowInteger: FixedWidthInteger, ColumnConvertible {}

extension _SharkNarrowInteger {
    public static var storageType: StorageType { .integer }
    public static var logicalType: LogicalType { isSigned ? .integer : .unsignedInteger }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Self {
        try narrowed(row.int64(at: index))
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        row.write(Self.widened(self), at: index)
    }
    @inlinable
    public var columnValue: Value { .integer(Self.widened(self)) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        self = try Self.narrowed(columnValue.coercedToInt64())
    }

    @inlinable
    static func widened(_ value: Self) -> Int64 {
        // UInt64 and UInt keep their bit pattern so that every value round-trips.
        Self.bitWidth == 64 && !Self.isSigned ? Int64(truncatingIfNeeded: value) : Int64(value)
    }

    @inlinable
    static func narrowed(_ stored: Int64) throws(SharkError) -> Self {
        if Self.bitWidth == 64 && !Self.isSigned { return Self(truncatingIfNeeded: stored) }
        guard let value = Self(exactly: stored) else {
            throw SharkError.decoding(reason: "\(stored) does not fit in \(Self.self)")
        }
        return value
    }
}

extension Int: _SharkNarrowInteger {}
extension Int8: _SharkNarrowInteger {}
extension Int16: _SharkNarrowInteger {}
extension Int32: _SharkNarrowInteger {}
extension UInt: _SharkNarrowInteger {}
extension UInt8: _SharkNarrowInteger {}
extension UInt16: _SharkNarrowInteger {}
extension UInt32: _SharkNarrowInteger {}
extension UInt64: _SharkNarrowInteger {}

extension Bool: ColumnConvertible {
    public static var storageType: StorageType { .integer }
    public static var logicalType: LogicalType { .bool }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Bool {
        row.int64(at: index) != 0
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        row.write(Int64(self ? 1 : 0), at: index)
    }
    @inlinable
    public var columnValue: Value { .integer(self ? 1 : 0) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) { self = columnValue.coercedToInt64() != 0 }
}

// MARK: - Floating point

extension Double: ColumnConvertible {
    public static var storageType: StorageType { .real }
    public static var logicalType: LogicalType { .real }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Double {
        // NULL reads as 0 (RowReader's contract, SQLite's rule): only a zero needs the
        // second look that tells a stored NaN (NULL) from a stored zero.
        let value = row.double(at: index)
        return value == 0 && row.isNull(at: index) ? .nan : value
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        if isNaN { row.writeNull(at: index) } else { row.write(self, at: index) }
    }
    @inlinable
    public var columnValue: Value { isNaN ? .null : .real(self) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        self = columnValue.isNull ? .nan : columnValue.coercedToDouble()
    }
}

extension Float: ColumnConvertible {
    public static var storageType: StorageType { .real }
    public static var logicalType: LogicalType { .real }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Float {
        let value = row.double(at: index)
        return value == 0 && row.isNull(at: index) ? .nan : Float(value)
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        if isNaN { row.writeNull(at: index) } else { row.write(Double(self), at: index) }
    }
    @inlinable
    public var columnValue: Value { isNaN ? .null : .real(Double(self)) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        self = columnValue.isNull ? .nan : Float(columnValue.coercedToDouble())
    }
}

// MARK: - Text and bytes

extension String: ColumnConvertible {
    public static var storageType: StorageType { .text }
    public static var logicalType: LogicalType { .string }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> String {
        row.text(at: index)
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        row.write(self, at: index)
    }
    @inlinable
    public var columnValue: Value { .text(self) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) { self = columnValue.coercedToText() }
}

extension Data: ColumnConvertible {
    public static var storageType: StorageType { .blob }
    public static var logicalType: LogicalType { .data }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Data {
        row.blob(at: index)
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        row.write(self, at: index)
    }
    @inlinable
    public var columnValue: Value { .blob(self) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) { self = columnValue.coercedToBlob() }
}

// MARK: - Foundation values

extension Date: ColumnConvertible {
    public static var storageType: StorageType { .real }
    public static var logicalType: LogicalType { .date }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Date {
        Date(timeIntervalSinceReferenceDate: row.double(at: index))
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        // A NaN would be stored as NULL and read back as 2001-01-01: refuse it instead.
        guard !timeIntervalSinceReferenceDate.isNaN else {
            throw SharkError.invalidValue("a Date whose time interval is NaN cannot be stored")
        }
        row.write(timeIntervalSinceReferenceDate, at: index)
    }
    @inlinable
    public var columnValue: Value { .real(timeIntervalSinceReferenceDate) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        self = Date(timeIntervalSinceReferenceDate: columnValue.coercedToDouble())
    }
}

extension UUID: ColumnConvertible {
    public static var storageType: StorageType { .blob }
    public static var logicalType: LogicalType { .uuid }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> UUID {
        try UUID(bytes: row.blob(at: index))
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        row.write(bytes, at: index)
    }
    @inlinable
    public var columnValue: Value { .blob(bytes) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        if case .text(let text) = columnValue, let uuid = UUID(uuidString: text) {
            self = uuid
        } else {
            try self.init(bytes: columnValue.coercedToBlob())
        }
    }

    /// The 16 bytes of the UUID, in network order.
    @usableFromInline
    var bytes: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    /// The UUID of its 16 stored bytes (network order); throws for any other length. Also what
    /// tools decoding stored values without model types use.
    @usableFromInline
    package init(bytes: Data) throws(SharkError) {
        guard bytes.count == 16 else {
            throw SharkError.decoding(reason: "a UUID needs 16 bytes, found \(bytes.count)")
        }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
        self.init(uuid: raw)
    }
}

extension URL: ColumnConvertible {
    public static var storageType: StorageType { .text }
    public static var logicalType: LogicalType { .url }
    @inlinable
    public var columnValue: Value { .text(absoluteString) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        let text = columnValue.coercedToText()
        guard let url = URL(string: text) else {
            throw SharkError.decoding(reason: "\"\(text)\" is not a URL")
        }
        self = url
    }
}

extension Decimal: ColumnConvertible {
    public static var storageType: StorageType { .text }
    public static var logicalType: LogicalType { .sortableDecimal }
    /// The sortable text of ``DecimalText``; NaN, which has none, as its plain text (a commit
    /// refuses it before).
    public var columnValue: Value { .text(isNaN ? description : DecimalText.encode(self)) }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        // NaN has no decimal text that reads back: refuse it rather than store a row that
        // could never be fetched again.
        guard !isNaN else {
            throw SharkError.invalidValue("Decimal.nan cannot be stored (use an optional Decimal and nil instead)")
        }
        row.write(DecimalText.encode(self), at: index)
    }
    public init(columnValue: Value) throws(SharkError) {
        switch columnValue {
        case .integer(let value): self = Decimal(value)
        case .real(let value): self = Decimal(value)
        default:
            let text = columnValue.coercedToText()
            guard let decimal = DecimalText.decode(text) else {
                throw SharkError.decoding(reason: "\"\(text)\" is not a decimal number")
            }
            self = decimal
        }
    }
}

// MARK: - Optionals

extension Optional: ColumnConvertible where Wrapped: ColumnConvertible {
    public static var storageType: StorageType { Wrapped.storageType }
    public static var logicalType: LogicalType { Wrapped.logicalType }
    public static var isNullable: Bool { true }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Wrapped? {
        row.isNull(at: index) ? nil : try Wrapped.read(from: row, at: index)
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        if let self { try self.write(to: row, at: index) } else { row.writeNull(at: index) }
    }
    @inlinable
    public var columnValue: Value { self?.columnValue ?? .null }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        self = columnValue.isNull ? nil : try Wrapped(columnValue: columnValue)
    }
}
