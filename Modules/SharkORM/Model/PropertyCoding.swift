import Foundation

/// How generated model code stores a property of any supported type.
///
/// `@Model` emits calls such as `_SharkCoding.read(Kind.self, from: row, at: 3)` without
/// knowing what `Kind` is; overload resolution picks the strategy at compile time:
///
/// - built-in types (``ColumnConvertible``) are stored natively;
/// - `RawRepresentable` enums are stored as their raw value;
/// - other `Codable` values are stored as JSON text (sorted keys, so equal values store equal
///   text);
/// - anything else hits the unavailable fallback, a compile-time error listing what is
///   supported.
///
/// The combined overloads (`RawRepresentable & Codable`, `ColumnConvertible & Codable`, and
/// their optionals) only break ties: a `String` enum is usually `Codable` too, and must still
/// be stored by raw value. Not for direct use.
public enum _SharkCoding {
    // MARK: Built-in types

    /// The bit width of an integer, Bool or floating-point property (see
    /// ``ColumnSchema/bitWidth``); nil for every other type.
    public static func bitWidth<T>(_: T.Type) -> Int? { nil }
    public static func bitWidth<T: ColumnConvertible>(_: T.Type) -> Int? { T.columnBitWidth }
    public static func bitWidth<T: ColumnConvertible>(_: T?.Type) -> Int? { T.columnBitWidth }
    public static func bitWidth<T: RawRepresentable>(_: T.Type) -> Int? where T.RawValue: ColumnConvertible {
        T.RawValue.columnBitWidth
    }
    public static func bitWidth<T: RawRepresentable>(_: T?.Type) -> Int? where T.RawValue: ColumnConvertible {
        T.RawValue.columnBitWidth
    }

    public static func storageType<T: ColumnConvertible>(_: T.Type) -> StorageType { T.storageType }
    public static func logicalType<T: ColumnConvertible>(_: T.Type) -> LogicalType { T.logicalType }
    public static func isNullable<T: ColumnConvertible>(_: T.Type) -> Bool { T.isNullable }
    @inlinable
    public static func read<T: ColumnConvertible>(_: T.Type, from row: any RowReader, at index: Int32)
        throws(SharkError) -> T
    {
        try T.read(from: row, at: index)
    }
    @inlinable
    public static func write<T: ColumnConvertible>(_ value: T, to row: any RowWriter, at index: Int32)
        throws(SharkError)
    {
        try value.write(to: row, at: index)
    }

    public static func storageType<T: ColumnConvertible & Codable>(_: T.Type) -> StorageType { T.storageType }
    public static func logicalType<T: ColumnConvertible & Codable>(_: T.Type) -> LogicalType { T.logicalType }
    public static func isNullable<T: ColumnConvertible & Codable>(_: T.Type) -> Bool { T.isNullable }
    @inlinable
    public static func read<T: ColumnConvertible & Codable>(_: T.Type, from row: any RowReader, at index: Int32)
        throws(SharkError) -> T
    {
        try T.read(from: row, at: index)
    }
    @inlinable
    public static func write<T: ColumnConvertible & Codable>(_ value: T, to row: any RowWriter, at index: Int32)
        throws(SharkError)
    {
        try value.write(to: row, at: index)
    }

    public static func storageType<T: ColumnConvertible & Codable>(_: T?.Type) -> StorageType { T.storageType }
    public static func logicalType<T: ColumnConvertible & Codable>(_: T?.Type) -> LogicalType { T.logicalType }
    public static func isNullable<T: ColumnConvertible & Codable>(_: T?.Type) -> Bool { true }
    @inlinable
    public static func read<T: ColumnConvertible & Codable>(_: T?.Type, from row: any RowReader, at index: Int32)
        throws(SharkError) -> T?
    {
        try T?.read(from: row, at: index)
    }
    @inlinable
    public static func write<T: ColumnConvertible & Codable>(_ value: T?, to row: any RowWriter, at index: Int32)
        throws(SharkError)
    {
        try value.write(to: row, at: index)
    }

    // MARK: RawRepresentable enums

    public static func storageType<T: RawRepresentable>(_: T.Type) -> StorageType where T.RawValue: ColumnConvertible {
        T.RawValue.storageType
    }
    public static func logicalType<T: RawRepresentable>(_: T.Type) -> LogicalType where T.RawValue: ColumnConvertible {
        T.RawValue.logicalType
    }
    public static func isNullable<T: RawRepresentable>(_: T.Type) -> Bool where T.RawValue: ColumnConvertible { false }
    @inlinable
    public static func read<T: RawRepresentable>(_: T.Type, from row: any RowReader, at index: Int32)
        throws(SharkError) -> T
    where T.RawValue: ColumnConvertible {
        try enumCase(T.self, T.RawValue.read(from: row, at: index))
    }
    @inlinable
    public static func write<T: RawRepresentable>(_ value: T, to row: any RowWriter, at index: Int32)
        throws(SharkError)
    where T.RawValue: ColumnConvertible {
        try value.rawValue.write(to: row, at: index)
    }

    public static func storageType<T: RawRepresentable>(_: T?.Type) -> StorageType where T.RawValue: ColumnConvertible {
        T.RawValue.storageType
    }
    public static func logicalType<T: RawRepresentable>(_: T?.Type) -> LogicalType where T.RawValue: ColumnConvertible {
        T.RawValue.logicalType
    }
    public static func isNullable<T: RawRepresentable>(_: T?.Type) -> Bool where T.RawValue: ColumnConvertible { true }
    @inlinable
    public static func read<T: RawRepresentable>(_: T?.Type, from row: any RowReader, at index: Int32)
        throws(SharkError) -> T?
    where T.RawValue: ColumnConvertible {
        row.isNull(at: index) ? nil : try enumCase(T.self, T.RawValue.read(from: row, at: index))
    }
    @inlinable
    public static func write<T: RawRepresentable>(_ value: T?, to row: any RowWriter, at index: Int32)
        throws(SharkError)
    where T.RawValue: ColumnConvertible {
        if let value { try value.rawValue.write(to: row, at: index) } else { row.writeNull(at: index) }
    }

    public static func storageType<T: RawRepresentable & Codable>(_: T.Type) -> StorageType
    where T.RawValue: ColumnConvertible {
        T.RawValue.storageType
    }
    public static func logicalType<T: RawRepresentable & Codable>(_: T.Type) -> LogicalType
    where T.RawValue: ColumnConvertible {
        T.RawValue.logicalType
    }
    public static func isNullable<T: RawRepresentable & Codable>(_: T.Type) -> Bool
    where T.RawValue: ColumnConvertible { false }
    @inlinable
    public static func read<T: RawRepresentable & Codable>(_: T.Type, from row: any RowReader, at index: Int32)
        throws(SharkError) -> T
    where T.RawValue: ColumnConvertible {
        try enumCase(T.self, T.RawValue.read(from: row, at: index))
    }
    @inlinable
    public static func write<T: RawRepresentable & Codable>(_ value: T, to row: any RowWriter, at index: Int32)
        throws(SharkError)
    where T.RawValue: ColumnConvertible {
        try value.rawValue.write(to: row, at: index)
    }

    public static func storageType<T: RawRepresentable & Codable>(_: T?.Type) -> StorageType
    where T.RawValue: ColumnConvertible {
        T.RawValue.storageType
    }
    public static func logicalType<T: RawRepresentable & Codable>(_: T?.Type) -> LogicalType
    where T.RawValue: ColumnConvertible {
        T.RawValue.logicalType
    }
    public static func isNullable<T: RawRepresentable & Codable>(_: T?.Type) -> Bool
    where T.RawValue: ColumnConvertible { true }
    @inlinable
    public static func read<T: RawRepresentable & Codable>(_: T?.Type, from row: any RowReader, at index: Int32)
        throws(SharkError) -> T?
    where T.RawValue: ColumnConvertible {
        row.isNull(at: index) ? nil : try enumCase(T.self, T.RawValue.read(from: row, at: index))
    }
    @inlinable
    public static func write<T: RawRepresentable & Codable>(_ value: T?, to row: any RowWriter, at index: Int32)
        throws(SharkError)
    where T.RawValue: ColumnConvertible {
        if let value { try value.rawValue.write(to: row, at: index) } else { row.writeNull(at: index) }
    }

    @usableFromInline
    static func enumCase<T: RawRepresentable>(_: T.Type, _ raw: T.RawValue) throws(SharkError) -> T {
        guard let value = T(rawValue: raw) else {
            throw SharkError.decoding(.notARawValue, "\(raw) is not a raw value of \(T.self)")
        }
        return value
    }

    // MARK: Codable values, stored as JSON text

    public static func storageType<T: Codable>(_: T.Type) -> StorageType { .text }
    public static func logicalType<T: Codable>(_: T.Type) -> LogicalType { .json }
    public static func isNullable<T: Codable>(_: T.Type) -> Bool { false }
    @inlinable
    public static func read<T: Codable>(_: T.Type, from row: any RowReader, at index: Int32) throws(SharkError) -> T {
        try decodeJSON(T.self, row.string(at: index))
    }
    @inlinable
    public static func write<T: Codable>(_ value: T, to row: any RowWriter, at index: Int32) throws(SharkError) {
        row.write(try encodeJSON(value), at: index)
    }

    public static func storageType<T: Codable>(_: T?.Type) -> StorageType { .text }
    public static func logicalType<T: Codable>(_: T?.Type) -> LogicalType { .json }
    public static func isNullable<T: Codable>(_: T?.Type) -> Bool { true }
    @inlinable
    public static func read<T: Codable>(_: T?.Type, from row: any RowReader, at index: Int32) throws(SharkError) -> T? {
        row.isNull(at: index) ? nil : try decodeJSON(T.self, row.string(at: index))
    }
    @inlinable
    public static func write<T: Codable>(_ value: T?, to row: any RowWriter, at index: Int32) throws(SharkError) {
        if let value { row.write(try encodeJSON(value), at: index) } else { row.writeNull(at: index) }
    }

    /// A `Codable` property value as the JSON text its column stores: what sync's app
    /// resolvers decode and encode (one encoding wherever a value comes from).
    @_spi(SharkReplication)
    public static func storedJSON<T: Encodable>(_ value: T) throws(SharkError) -> String { try encodeJSON(value) }

    /// The `Codable` property value a column's JSON text holds.
    @_spi(SharkReplication)
    public static func decodeStoredJSON<T: Decodable>(_ type: T.Type, _ text: String) throws(SharkError) -> T {
        try decodeJSON(type, text)
    }

    @usableFromInline
    static func encodeJSON<T: Encodable>(_ value: T) throws(SharkError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw SharkError.invalidValue(.notEncodable, "cannot encode \(T.self) as JSON: \(error)")
        }
    }

    @usableFromInline
    static func decodeJSON<T: Decodable>(_: T.Type, _ text: String) throws(SharkError) -> T {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return try decoder.decode(T.self, from: Data(text.utf8))
        } catch {
            throw SharkError.decoding(.invalidJSON, "cannot decode \(T.self) from JSON \(text.prefix(80)): \(error)")
        }
    }

    // MARK: Anything else

    @available(
        *, unavailable,
        message:
            "unsupported property type: a model property must be Bool, an integer, Float, Double, String, Data, Date, UUID, URL, Decimal, a RawRepresentable enum, a Codable value, or an optional of one of these"
    )
    public static func storageType<T>(_: T.Type) -> StorageType { fatalError("unsupported property type") }
    @available(
        *, unavailable,
        message:
            "unsupported property type: a model property must be Bool, an integer, Float, Double, String, Data, Date, UUID, URL, Decimal, a RawRepresentable enum, a Codable value, or an optional of one of these"
    )
    public static func logicalType<T>(_: T.Type) -> LogicalType { fatalError("unsupported property type") }

    // MARK: Keys

    /// How a key of this type is assigned. Only `Int64`, `UUID` and `String` keys exist; any
    /// other `id` type meets the unavailable overload, whose message says so.
    public static func keyKind(_: Int64.Type) -> KeyKind { .autoIncrement }
    public static func keyKind(_: UUID.Type) -> KeyKind { .uuid }
    public static func keyKind(_: String.Type) -> KeyKind { .string }
    @available(
        *, unavailable,
        message: "the key 'id' of a model must be Int64 (assigned by the store), UUID or String"
    )
    public static func keyKind<T>(_: T.Type) -> KeyKind { fatalError("unsupported key type") }

    /// Sets a store-assigned key; keys of other types are the app's and are left alone.
    public static func assignKey(_ key: Int64, to id: inout Int64) { id = key }
    public static func assignKey<T>(_ key: Int64, to id: inout T) {}

    // MARK: Values

    /// The stored value of a property value of any supported type: generated code computes
    /// column defaults with it. One mapping for every caller (predicate arguments use the
    /// same), so a value is stored the same way wherever it comes from.
    public static func value<T>(_ value: T) throws(SharkError) -> Value { try storedValue(value) }
}
