import Foundation
@_spi(SharkReplication) import SharkORM

/// A row's key as a dictionary key. `Value`'s own hashing and equality of a `Data` go byte by
/// byte through several layers (about 2,000 instructions per lookup, measured); a UUID key is
/// read once into two words here, which matters when capture, import and export look up
/// thousands of keys per transaction.
struct RowKey: Hashable, Sendable {
    private enum Form: Hashable {
        case uuid(UInt64, UInt64)
        case text(String)
        case other(Value)
    }

    private let form: Form

    init(_ value: Value) {
        switch value {
        case .blob(let data) where data.count == 16:
            form = data.withUnsafeBytes {
                .uuid($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
        case .text(let text):
            form = .text(text)
        default:
            form = .other(value)
        }
    }

    /// The key as stored.
    var value: Value {
        switch form {
        case .uuid(let high, let low):
            var bytes = Data(count: 16)
            bytes.withUnsafeMutableBytes {
                $0.storeBytes(of: high, as: UInt64.self)
                $0.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
            }
            return .blob(bytes)
        case .text(let text): return .text(text)
        case .other(let value): return value
        }
    }
}

extension RowKey {
    /// Whether no two of `keys` are equal. UUID keys are sorted as pairs of words and their
    /// neighbours compared: for the hundred thousand keys of a big import, much cheaper than
    /// hashing each into a table that no longer fits the cache.
    static func areDistinct(_ keys: some Collection<Value>) -> Bool {
        var words: [(high: UInt64, low: UInt64)] = []
        words.reserveCapacity(keys.count)
        for key in keys {
            guard case .uuid(let high, let low) = RowKey(key).form else {
                var seen = Set<RowKey>()
                return keys.allSatisfy { seen.insert(RowKey($0)).inserted }
            }
            words.append((high, low))
        }
        words.sort { $0.high != $1.high ? $0.high < $1.high : $0.low < $1.low }
        return !zip(words, words.dropFirst()).contains { $0.high == $1.high && $0.low == $1.low }
    }
}
