import Foundation
@_spi(SharkDriver) import SharkORM

/// A row's key as the memory engine's sorted lists hold and compare it: the value itself, or,
/// for a blob of at most 16 bytes (a UUID, the key sync uses), its bytes in two integers.
///
/// Why not the value: `Data` lends its bytes only through its storage object, and reading
/// that object's fields costs a dynamic exclusivity check each. Comparing two UUID keys took
/// about 700 instructions against a dozen for two integers, and a search makes a dozen
/// comparisons: importing 20,000 rows keyed by UUID spent a quarter of its instructions in
/// those checks (callgrind, shark-bench's S). Two integers compare without touching the heap.
enum SortKey {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// A blob longer than 16 bytes.
    case blob(Data)
    /// The bytes in big-endian order, zero-padded: comparing `high`, then `low`, then `count`
    /// orders as SQLite orders blobs (bytes first, then the shorter first).
    case shortBlob(high: UInt64, low: UInt64, count: UInt8)

    // One flat enum rather than a value wrapped beside the short form: a write copies every
    // entry of a leaf, and a nested enum took two outlined copies per key where this takes one.

    @inline(__always)
    init(_ value: Value) {
        // Integers, the common case, inline: every row written makes a key for the table and
        // two for each index entry.
        if case .integer(let integer) = value {
            self = .integer(integer)
        } else {
            self.init(converting: value)
        }
    }

    private init(converting value: Value) {
        switch value {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value)
        case .text(let value): self = .text(value)
        case .blob(let data):
            guard data.count <= 16 else {
                self = .blob(data)
                return
            }
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { buffer in
                data.withUnsafeBytes { bytes in buffer.copyMemory(from: bytes) }
            }
            self = .shortBlob(
                high: UInt64(bigEndian: words.0), low: UInt64(bigEndian: words.1), count: UInt8(data.count))
        }
    }

    /// The key as a value (a short blob's bytes are copied into a new `Data`).
    var value: Value {
        switch self {
        case .null: return .null
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let value): return .text(value)
        case .blob(let value): return .blob(value)
        case .shortBlob(let high, let low, let count):
            var words = (high.bigEndian, low.bigEndian)
            return .blob(withUnsafeBytes(of: &words) { Data($0.prefix(Int(count))) })
        }
    }

    var storageType: StorageType? {
        switch self {
        case .null: return nil
        case .integer: return .integer
        case .real: return .real
        case .text: return .text
        case .blob, .shortBlob: return .blob
        }
    }

    /// -1, 0 or 1, as SQLite orders the two keys (``SQLiteSemantics/compare(_:_:)``).
    @inline(__always)
    static func compare(_ lhs: SortKey, _ rhs: SortKey) -> Int {
        // Two integers, the common case, inline.
        if case .integer(let a) = lhs, case .integer(let b) = rhs { return a < b ? -1 : (a > b ? 1 : 0) }
        return compareAny(lhs, rhs)
    }

    private static func compareAny(_ lhs: SortKey, _ rhs: SortKey) -> Int {
        // One switch per side, as `SQLiteSemantics` does: a switch over the pair would copy
        // both keys (and retain their text) for every comparison of a search.
        switch lhs {
        case .integer(let a):
            if case .integer(let b) = rhs { return a < b ? -1 : (a > b ? 1 : 0) }
            if case .real(let b) = rhs { return SQLiteSemantics.compare(a, b) }
        case .real(let a):
            if case .real(let b) = rhs { return a < b ? -1 : (a > b ? 1 : 0) }
            if case .integer(let b) = rhs { return -SQLiteSemantics.compare(b, a) }
        case .text(let a):
            if case .text(let b) = rhs { return SQLiteSemantics.compareBytes(a, b) }
        case .shortBlob(let high, let low, let count):
            if case .shortBlob(let otherHigh, let otherLow, let otherCount) = rhs {
                if high != otherHigh { return high < otherHigh ? -1 : 1 }
                if low != otherLow { return low < otherLow ? -1 : 1 }
                return count < otherCount ? -1 : (count > otherCount ? 1 : 0)
            }
            if case .blob(let b) = rhs { return SQLiteSemantics.compare(lhs.value, .blob(b)) }
        case .blob(let a):
            if case .blob(let b) = rhs { return SQLiteSemantics.compareBytes(a, b) }
            if case .shortBlob = rhs { return SQLiteSemantics.compare(.blob(a), rhs.value) }
        case .null:
            if case .null = rhs { return 0 }
        }
        let (a, b) = (lhs.rank, rhs.rank)
        return a < b ? -1 : (a > b ? 1 : 0)
    }

    /// SQLite's order of storage classes: NULL, numbers, text, blobs.
    private var rank: Int {
        switch self {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob, .shortBlob: return 3
        }
    }
}
