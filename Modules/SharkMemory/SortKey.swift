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
    case value(Value)
    /// The bytes in big-endian order, zero-padded: comparing `high`, then `low`, then `count`
    /// orders as SQLite orders blobs (bytes first, then the shorter first).
    case shortBlob(high: UInt64, low: UInt64, count: UInt8)

    init(_ value: Value) {
        guard case .blob(let data) = value, data.count <= 16 else {
            self = .value(value)
            return
        }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { buffer in
            data.withUnsafeBytes { bytes in buffer.copyMemory(from: bytes) }
        }
        self = .shortBlob(
            high: UInt64(bigEndian: words.0), low: UInt64(bigEndian: words.1), count: UInt8(data.count))
    }

    /// The key as a value (a short blob's bytes are copied into a new `Data`).
    var value: Value {
        switch self {
        case .value(let value): return value
        case .shortBlob(let high, let low, let count):
            var words = (high.bigEndian, low.bigEndian)
            return .blob(withUnsafeBytes(of: &words) { Data($0.prefix(Int(count))) })
        }
    }

    var storageType: StorageType? {
        switch self {
        case .value(let value): return value.storageType
        case .shortBlob: return .blob
        }
    }

    /// -1, 0 or 1, as SQLite orders the two keys (``SQLiteSemantics/compare(_:_:)``).
    static func compare(_ lhs: SortKey, _ rhs: SortKey) -> Int {
        switch lhs {
        case .value(let left):
            if case .value(let right) = rhs { return SQLiteSemantics.compare(left, right) }
            return -compare(rhs, lhs)
        case .shortBlob(let high, let low, let count):
            switch rhs {
            case .shortBlob(let otherHigh, let otherLow, let otherCount):
                if high != otherHigh { return high < otherHigh ? -1 : 1 }
                if low != otherLow { return low < otherLow ? -1 : 1 }
                return count < otherCount ? -1 : (count > otherCount ? 1 : 0)
            case .value(let right):
                // A longer blob compares by its bytes; every other class sorts before blobs.
                guard case .blob = right else { return 1 }
                return SQLiteSemantics.compare(lhs.value, right)
            }
        }
    }
}
