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
/// - Every integer is a 64-bit INTEGER. A `UInt64` or `UInt` above `Int64.max` is refused when
///   written (it would compare, sort and add up as a negative number); one stored that way by
///   an earlier version still reads back unchanged.
/// - `UUID` is a 16-byte BLOB; `URL` is TEXT; `Decimal` is TEXT that sorts as the numbers do
///   (``DecimalText``), so comparisons, ordering, `min` and `max` are numeric and exact.
/// - −0.0 keeps its sign (it compares equal to 0.0). A `Double.nan` or `Float.nan` in a
///   non-optional property is
///   stored as NULL and reads back as NaN; in an optional one, where NULL is nil, it is
///   refused.
/// - What has no stored form that reads back is refused when written, with
///   ``SharkError/invalidValue(_:)``: `Decimal.nan`, a `Date` whose time interval is NaN, an
///   optional holding NaN, an unsigned integer above `Int64.max`.
///
/// docs/values.md gives every type's rules: range, comparison, ordering, arithmetic.
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
    /// How many bits the type has, for integers, `Bool` and floating point; nil otherwise.
    /// Recorded with the schema (``ColumnSchema/bitWidth``), it bounds what the column takes.
    static var columnBitWidth: Int? { get }
    /// Whether this is a floating-point NaN: stored as NULL in a non-optional property (which
    /// reads NULL back as NaN), refused in an optional one, where NULL means nil.
    var _sharkIsNaN: Bool { get }
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
    public static var columnBitWidth: Int? { nil }
    public var _sharkIsNaN: Bool { false }

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
    public static var columnBitWidth: Int? { 64 }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Int64 {
        try row.integer(at: index)
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
    public static var columnBitWidth: Int? { bitWidth }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Self {
        try narrowed(try row.integer(at: index))
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        row.write(try Self.stored(self), at: index)
    }
    /// The value as a stored integer; one above `Int64.max` (a `UInt64` or `UInt`), which no
    /// stored integer holds, as the nearest real, so that comparisons with it still hold
    /// (every stored value is smaller).
    @inlinable
    public var columnValue: Value {
        if let stored = Int64(exactly: self) { return .integer(stored) }
        return .real(Double(self))
    }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        self = try Self.narrowed(columnValue.coercedToInt64())
    }

    /// `value` as the 64-bit integer stored for it. A `UInt64` or `UInt` above `Int64.max`
    /// is refused: stored by bit pattern it would compare, sort and add up as a negative
    /// number (see docs/values.md).
    @inlinable
    static func stored(_ value: Self) throws(SharkError) -> Int64 {
        guard let stored = Int64(exactly: value) else {
            throw SharkError.invalidValue(
                .aboveInt64Max,
                "\(Self.self) \(value) is above Int64.max (9223372036854775807), the largest integer a store holds")
        }
        return stored
    }

    @inlinable
    static func narrowed(_ stored: Int64) throws(SharkError) -> Self {
        // A UInt64 or UInt stored above Int64.max by an earlier version (by bit pattern)
        // still reads back as it was.
        if Self.bitWidth == 64 && !Self.isSigned { return Self(truncatingIfNeeded: stored) }
        guard let value = Self(exactly: stored) else {
            throw SharkError.decoding(.doesNotFit, "\(stored) does not fit in \(Self.self)")
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
    public static var columnBitWidth: Int? { 1 }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Bool {
        try row.integer(at: index) != 0
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
    public static var columnBitWidth: Int? { 64 }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Double {
        // A stored NaN is NULL, which `real(at:)` reads as NaN.
        try row.real(at: index)
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
    public var _sharkIsNaN: Bool { isNaN }
}

extension Float: ColumnConvertible {
    public static var storageType: StorageType { .real }
    public static var logicalType: LogicalType { .real }
    public static var columnBitWidth: Int? { 32 }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Float {
        Float(try row.real(at: index))
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
    public var _sharkIsNaN: Bool { isNaN }
}

// MARK: - Text and bytes

extension String: ColumnConvertible {
    public static var storageType: StorageType { .text }
    public static var logicalType: LogicalType { .string }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> String {
        try row.string(at: index)
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
        try row.bytes(at: index)
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
        // Seconds, as SharkORM stores a date (NULL reads as NaN, which no stored date is).
        if let seconds = try? row.real(at: index), !seconds.isNaN {
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        // Text another program wrote (SQLite's `datetime()`, ISO 8601) is the date it spells.
        let value = row.value(at: index)
        if case .text(let text) = value, let date = DateText.date(from: text) { return date }
        throw row.mismatch(value, at: index, expected: "a date (seconds since 2001, or date text)")
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        // A NaN would be stored as NULL and read back as 2001-01-01: refuse it instead.
        guard !timeIntervalSinceReferenceDate.isNaN else {
            throw SharkError.invalidValue(.notANumberStored, "a Date whose time interval is NaN cannot be stored")
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
        let value = row.value(at: index)
        switch value {
        case .blob(let bytes) where bytes.count == 16: return try UUID(bytes: bytes)
        // A UUID's text (as some programs store it) is that UUID.
        case .text(let text): if let uuid = UUID(uuidString: text) { return uuid }
        default: break
        }
        throw row.mismatch(value, at: index, expected: "a UUID (16 bytes, or its text)")
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
            throw SharkError.decoding(.invalidUUID, "a UUID needs 16 bytes, found \(bytes.count)")
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
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> URL {
        try URL(columnValue: .text(row.string(at: index)))
    }
    @inlinable
    public var columnValue: Value { .text(absoluteString) }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        let text = columnValue.coercedToText()
        guard let url = URL(string: text) else {
            throw SharkError.decoding(.invalidURL, "\"\(text)\" is not a URL")
        }
        self = url
    }
}

extension Decimal: ColumnConvertible {
    public static var storageType: StorageType { .text }
    public static var logicalType: LogicalType { .sortableDecimal }
    /// The sortable text of ``DecimalText``; NaN, which has none, as NULL (a commit refuses
    /// it before; as a query argument it compares as SQL's unknown, matching nothing).
    public var columnValue: Value { isNaN ? .null : .text(DecimalText.encode(self)) }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        // NaN has no decimal text that reads back: refuse it rather than store a row that
        // could never be fetched again.
        guard !isNaN else {
            throw SharkError.invalidValue(
                .notANumberStored, "Decimal.nan cannot be stored (use an optional Decimal and nil instead)")
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
                throw SharkError.decoding(.invalidDecimal, "\"\(text)\" is not a decimal number")
            }
            self = decimal
        }
    }
}

// MARK: - Optionals

extension Optional: ColumnConvertible where Wrapped: ColumnConvertible {
    public static var storageType: StorageType { Wrapped.storageType }
    public static var logicalType: LogicalType { Wrapped.logicalType }
    public static var columnBitWidth: Int? { Wrapped.columnBitWidth }
    public static var isNullable: Bool { true }
    @inlinable
    public static func read(from row: any RowReader, at index: Int32) throws(SharkError) -> Wrapped? {
        row.isNull(at: index) ? nil : try Wrapped.read(from: row, at: index)
    }
    @inlinable
    public func write(to row: any RowWriter, at index: Int32) throws(SharkError) {
        guard let self else { return row.writeNull(at: index) }
        // NULL is nil here, so a NaN would read back as nil: refuse it, as Decimal.nan is.
        if self._sharkIsNaN {
            throw SharkError.invalidValue(
                .notANumberStored,
                "an optional \(Wrapped.self) holding NaN cannot be stored: nil is its NULL (store nil, or use a "
                    + "non-optional \(Wrapped.self), which keeps NaN)")
        }
        try self.write(to: row, at: index)
    }
    @inlinable
    public var columnValue: Value { self?.columnValue ?? .null }
    @inlinable
    public init(columnValue: Value) throws(SharkError) {
        self = columnValue.isNull ? nil : try Wrapped(columnValue: columnValue)
    }
}
