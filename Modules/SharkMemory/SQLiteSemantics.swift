import Foundation
@_spi(SharkDriver) import SharkORM

/// SQLite's rules for comparing, converting and matching values, so the memory engine gives
/// the same answers as the SQL drivers: NULL sorts first, integers and reals compare by
/// numeric value, text compares byte by byte (the BINARY collation), and blobs sort last.
enum SQLiteSemantics {
    /// The storage-class rank in SQLite's sort order.
    private static func rank(_ value: Value) -> Int {
        switch value {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }

    /// -1, 0 or 1, as SQLite orders `lhs` and `rhs` (NULL first).
    ///
    /// Two integers, the common case (keys, relationship and counter columns), compare right
    /// where the call is: the general comparison is a call that copies both values first, two
    /// copies and releases at every step of a search.
    @inline(__always)
    static func compare(_ lhs: Value, _ rhs: Value) -> Int {
        if case .integer(let a) = lhs, case .integer(let b) = rhs { return a < b ? -1 : (a > b ? 1 : 0) }
        return compareAnyValues(lhs, rhs)
    }

    /// ``compare(_:_:)`` for every pair of storage classes.
    private static func compareAnyValues(_ lhs: Value, _ rhs: Value) -> Int {
        // One switch per side rather than a switch over the pair: the pair would be a tuple,
        // copying both values (and retaining their text) for every comparison of a search.
        switch lhs {
        case .integer(let a):
            if case .integer(let b) = rhs { return a < b ? -1 : (a > b ? 1 : 0) }
            if case .real(let b) = rhs { return compare(a, b) }
        case .real(let a):
            if case .real(let b) = rhs { return a < b ? -1 : (a > b ? 1 : 0) }
            if case .integer(let b) = rhs { return -compare(b, a) }
        case .text(let a):
            if case .text(let b) = rhs { return compareBytes(a, b) }
        case .blob(let a):
            if case .blob(let b) = rhs { return compareBytes(a, b) }
        case .null:
            if case .null = rhs { return 0 }
        }
        let (a, b) = (rank(lhs), rank(rhs))
        return a < b ? -1 : (a > b ? 1 : 0)
    }

    /// `values` in SQLite's order, each once.
    ///
    /// With `byStorageClass` (for key lookups) the integer 1 and the real 1.0, one value to the
    /// comparison, both stay, the integer first: a key of one storage class never finds a row
    /// keyed by the other. Without it (an index walk, an `IN` list) they are one value, as
    /// SQLite's comparison makes them.
    static func sortedDistinct(_ values: [Value], byStorageClass: Bool = true) -> [Value] {
        // Sorted by sort keys made once each: comparing two UUIDs as values reads both `Data`s.
        var keyed = values.map { (key: SortKey($0), value: $0) }
        keyed.sort { lhs, rhs in
            let order = SortKey.compare(lhs.key, rhs.key)
            if order != 0 { return order < 0 }
            if case .integer = lhs.key, case .real = rhs.key { return true }
            return false
        }
        var distinct: [Value] = []
        distinct.reserveCapacity(keyed.count)
        var last: SortKey?
        for (key, value) in keyed {
            if let last, SortKey.compare(last, key) == 0, !byStorageClass || last.storageType == key.storageType {
                continue
            }
            distinct.append(value)
            last = key
        }
        return distinct
    }

    /// An integer against a real, exactly (no rounding of large integers).
    static func compare(_ integer: Int64, _ real: Double) -> Int {
        if real.isNaN { return 1 }
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let truncated = Int64(real)
        if integer < truncated { return -1 }
        if integer > truncated { return 1 }
        let fraction = real - Double(truncated)
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    static func compareBytes(_ a: String, _ b: String) -> Int {
        // Native text (every string the engine stores) lends its bytes without a copy. Not
        // `withUTF8`: it is mutating, and a mutable copy captured by the inner closure is
        // boxed, an allocation and an exclusivity check for every comparison of a search.
        let borrowed = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                compareBuffers(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y))
            }
        }
        if let borrowed, let result = borrowed { return result }
        // Text stored another way (a foreign string): its bytes copied first.
        return compareBuffers(Array(a.utf8), Array(b.utf8))
    }

    static func compareBytes(_ a: Data, _ b: Data) -> Int {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in compareBuffers(x, y) } }
    }

    private static func compareBuffers(_ x: [UInt8], _ y: [UInt8]) -> Int {
        x.withUnsafeBytes { x in y.withUnsafeBytes { y in compareBuffers(x, y) } }
    }

    private static func compareBuffers(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let common = min(x.count, y.count)
        if common > 0, let p = x.baseAddress, let q = y.baseAddress {
            let result = memcmp(p, q, common)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return x.count < y.count ? -1 : (x.count > y.count ? 1 : 0)
    }

    // MARK: Affinity

    /// The affinity SQLite gives a column of each storage class, as the SQL drivers declare
    /// them: INTEGER columns have INTEGER affinity, TEXT columns TEXT affinity, and REAL and
    /// BLOB columns none (reals are declared without a type to keep -0.0).
    enum Affinity {
        case integer, text, none
    }

    static func affinity(of type: StorageType) -> Affinity {
        switch type {
        case .integer: return .integer
        case .text: return .text
        case .real, .blob: return .none
        }
    }

    /// Applies a column's affinity to a value compared with it, as SQLite does with bound
    /// parameters: numeric affinity turns numeric-looking text into a number, text affinity
    /// turns numbers into text.
    static func apply(_ affinity: Affinity, to value: Value) -> Value {
        switch (affinity, value) {
        case (.integer, .text(let text)):
            return numeric(text) ?? value
        case (.text, .integer), (.text, .real):
            return .text(value.coercedToText())
        default:
            return value
        }
    }

    /// A value as a column of `affinity` stores it (an UPDATE's SET): besides ``apply(_:to:)``,
    /// an integer column keeps a real that is exactly an integer as that integer.
    static func stored(_ value: Value, affinity: Affinity) -> Value {
        if affinity == .integer, case .real(let real) = value, real == real.rounded(),
            real >= -9_223_372_036_854_775_808.0, real < 9_223_372_036_854_775_808.0
        {
            return .integer(Int64(real))
        }
        return apply(affinity, to: value)
    }

    /// The number a text holds, if all of it is one ("12", " 3.5 ", "1e3").
    static func numeric(_ text: String) -> Value? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let integer = Int64(trimmed) { return .integer(integer) }
        guard let real = Double(trimmed), !trimmed.lowercased().contains("n"), !trimmed.contains("x") else {
            return nil
        }
        if real == real.rounded(), abs(real) < 9.2e18, !trimmed.contains("."), !trimmed.lowercased().contains("e") {
            return .integer(Int64(real))
        }
        return .real(real)
    }

    // MARK: LIKE

    /// SQLite's LIKE: `%` any run, `_` one character, ASCII letters case-insensitive.
    static func like(_ text: String, pattern: String) -> Bool {
        let subject = Array(text.unicodeScalars)
        let pattern = Array(pattern.unicodeScalars)
        return likeMatch(subject[...], pattern[...])
    }

    private static func likeMatch(_ subject: ArraySlice<Unicode.Scalar>, _ pattern: ArraySlice<Unicode.Scalar>) -> Bool
    {
        var s = subject.startIndex
        var p = pattern.startIndex
        var starP: Int?
        var starS = 0
        while s < subject.endIndex {
            if p < pattern.endIndex, pattern[p] == "%" {
                starP = p
                starS = s
                p += 1
            } else if p < pattern.endIndex, pattern[p] == "_" || folded(pattern[p]) == folded(subject[s]) {
                p += 1
                s += 1
            } else if let star = starP {
                p = star + 1
                starS += 1
                s = starS
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == "%" { p += 1 }
        return p == pattern.endIndex
    }

    private static func folded(_ scalar: Unicode.Scalar) -> UInt32 {
        let value = scalar.value
        return (65...90).contains(value) ? value + 32 : value
    }

    // MARK: CAST

    /// `CAST(value AS type)`, as SQLite converts between storage classes.
    static func cast(_ value: Value, to type: StorageType) -> Value {
        if value.isNull { return .null }
        switch type {
        case .integer:
            if case .text(let text) = value { return .integer(Value.text(text).coercedToInt64()) }
            return .integer(value.coercedToInt64())
        case .real: return .real(value.coercedToDouble())
        case .text: return .text(value.coercedToText())
        case .blob: return .blob(value.coercedToBlob())
        }
    }
}
