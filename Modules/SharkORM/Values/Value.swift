import Foundation

/// A single stored value, in one of the five storage classes every driver understands.
///
/// `Value` is what crosses the boundary between the core and a driver when a value has to be
/// held on its own: a bound predicate argument, a schema default, a memory-engine cell. The hot
/// fetch and insert paths never build `Value`s; generated code reads and writes columns directly
/// through ``RowReader`` and ``RowWriter``.
///
/// ```swift
/// let age: Value = 42            // .integer(42)
/// let name: Value = "Ada"        // .text("Ada")
/// ```
public enum Value: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The storage class of this value, or `nil` for ``null``.
    public var storageType: StorageType? {
        switch self {
        case .null: return nil
        case .integer: return .integer
        case .real: return .real
        case .text: return .text
        case .blob: return .blob
        }
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension Value: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByNilLiteral, ExpressibleByBooleanLiteral
{
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension Value: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): return "X'" + hexadecimal(value, uppercase: true) + "'"
        }
    }
}

/// The storage class of a column: how a driver lays the value out.
///
/// The same four classes as SQLite, so that every driver agrees on comparison and ordering.
public enum StorageType: String, Sendable, Hashable, Codable {
    case integer
    case real
    case text
    case blob
}
