@_spi(SharkDriver) import SharkORM

/// The scalar functions of the query AST, with the results SQLite's built-in functions give
/// (see ``ScalarFunction``), so that a predicate means the same on every driver.
enum ScalarFunctions {
    static func call(_ function: ScalarFunction, _ arguments: [CompiledExpression], _ row: [Value])
        throws(SharkError) -> Value
    {
        if function == .coalesce {
            for argument in arguments {
                let value = try argument.value(row)
                if !value.isNull { return value }
            }
            return .null
        }
        let value = try arguments[0].value(row)
        if value.isNull { return .null }
        switch function {
        case .lower: return .text(asciiMapped(value.coercedToText(), from: 65...90, by: 32))
        case .upper: return .text(asciiMapped(value.coercedToText(), from: 97...122, by: -32))
        case .length: return .integer(length(of: value))
        case .abs: return try ValueArithmetic.magnitude(value)
        case .coalesce: return .null  // answered above
        }
    }

    /// The text with the ASCII letters in `range` moved by `offset`; every other byte kept,
    /// as SQLite's `lower` and `upper` do without ICU.
    private static func asciiMapped(_ text: String, from range: ClosedRange<UInt8>, by offset: Int8) -> String {
        guard text.utf8.contains(where: { range.contains($0) }) else { return text }
        let bytes = text.utf8.map { range.contains($0) ? UInt8(Int8(bitPattern: $0) &+ offset) : $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// SQLite's `length`: bytes of a blob; otherwise the characters (code points) of the
    /// value as text, up to its first NUL.
    private static func length(of value: Value) -> Int64 {
        if case .blob(let bytes) = value { return Int64(bytes.count) }
        var count: Int64 = 0
        for scalar in value.coercedToText().unicodeScalars {
            if scalar == "\0" { break }
            count += 1
        }
        return count
    }
}
