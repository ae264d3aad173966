import Foundation
@_spi(SharkDriver) import SharkORM

/// The PostgreSQL type a column is stored as, and the type the query compiler gives each
/// expression: what a value is bound as and read back from.
///
/// Columns are typed (PostgreSQL has no SQLite-style dynamic typing), chosen so that every
/// value reads back as the same `Value` the other drivers give (docs/values.md, "PostgreSQL"):
/// integers `bigint`, reals and dates `double precision` (every bit of a `Double`, −0.0 and
/// ±∞ kept), decimals `numeric` (exact; read back in the core's sortable text), booleans
/// `boolean`, UUIDs `uuid`, blobs `bytea`, and text, URLs and JSON `text` in the "C"
/// collation, so that comparison, ordering, `lower`, `upper` and `LIKE` follow the bytes and
/// fold ASCII letters only, as on every driver.
enum PostgresType: Sendable, Hashable {
    case bigint
    case double
    case numeric
    case text
    case bytea
    case boolean
    case uuid
    /// A NULL literal, or what the compiler cannot type: takes the type of what it meets.
    case unknown

    /// The type a column of `column`'s storage class and logical type is created with.
    init(_ column: ColumnSchema) {
        switch (column.type, column.logicalType) {
        case (.integer, .bool?): self = .boolean
        case (.blob, .uuid?): self = .uuid
        case (.text, .sortableDecimal?), (.text, .decimal?): self = .numeric
        case (.integer, _): self = .bigint
        case (.real, _): self = .double
        case (.text, _): self = .text
        case (.blob, _): self = .bytea
        }
    }

    /// The type as a column definition names it.
    var declaration: String {
        switch self {
        case .bigint: return "bigint"
        case .double: return "double precision"
        case .numeric: return "numeric"
        case .text, .unknown: return "text COLLATE \"C\""
        case .bytea: return "bytea"
        case .boolean: return "boolean"
        case .uuid: return "uuid"
        }
    }

    /// The type as a cast names it.
    var castName: String {
        switch self {
        case .bigint: return "bigint"
        case .double: return "double precision"
        case .numeric: return "numeric"
        case .text, .unknown: return "text"
        case .bytea: return "bytea"
        case .boolean: return "boolean"
        case .uuid: return "uuid"
        }
    }

    /// Numbers compare with numbers; SQLite's order of storage classes puts them before text,
    /// text before blobs (docs/values.md, "Comparing and ordering").
    var storageRank: Int? {
        switch self {
        case .bigint, .double, .numeric, .boolean: return 0
        case .text: return 1
        case .bytea, .uuid: return 2
        case .unknown: return nil
        }
    }

    var isNumber: Bool { storageRank == 0 }

    /// The type of a value as bound with no column to fit.
    init(of value: Value) {
        switch value {
        case .null: self = .unknown
        case .integer: self = .bigint
        case .real: self = .double
        case .text: self = .text
        case .blob: self = .bytea
        }
    }
}
