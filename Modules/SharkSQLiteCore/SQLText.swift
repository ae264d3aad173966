import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM

/// Small helpers for writing SQL text safely.
enum SQLText {
    /// A quoted identifier: `"name"`, with embedded quotes doubled.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `?, ?, ?`
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// A literal for DDL, where SQLite cannot bind parameters (column defaults only).
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v):
            if v.isNaN { return "NULL" }
            if v.isInfinite { return v < 0 ? "-9e999" : "9e999" }
            return "\(v)"
        case .text(let v): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let v): return "X'" + hexadecimal(v, uppercase: true) + "'"
        }
    }
}
