/// What a column holds beyond its storage class: a UUID is a UUID, not just 16 bytes of blob.
///
/// Recorded with every applied schema, so a reader without the app's model types (the
/// `shark` command line, a sync import) can decode and show each value for what it is.
///
/// ```swift
/// let schema = try store.recordedSchema(of: "Person")
/// let uuids = schema.columns.filter { $0.logicalType == .uuid }.map(\.name)
/// ```
public enum LogicalType: String, Sendable, Hashable, Codable {
    case bool
    /// A signed integer of any width.
    case integer
    /// An unsigned integer; `UInt64` and `UInt` values above `Int64.max` are stored by bit
    /// pattern, so they read back as negative integers until reinterpreted.
    case unsignedInteger
    /// A `Float` or `Double`.
    case real
    case string
    case data
    /// Seconds since 2001-01-01 (`timeIntervalSinceReferenceDate`), as a real.
    case date
    /// 16 bytes, in network order.
    case uuid
    /// The URL's absolute string.
    case url
    /// A decimal number's plain text ("10.5"): the form of stores written before
    /// ``sortableDecimal``; migrated to it when the model is next applied.
    case decimal
    /// A decimal number as text that sorts as the numbers do (see ``DecimalText``).
    case sortableDecimal
    /// A `Codable` value as JSON text (sorted keys).
    case json
}
