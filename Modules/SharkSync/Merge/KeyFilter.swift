import Foundation
@_spi(SharkReplication) import SharkORM

/// A Bloom filter over the keys of one state batch (see `SyncStateBatchRecord`): what lets a
/// commit that changes a few rows find the batches holding them by reading a few kilobytes
/// per batch (once: see `BatchFilterCache`), where reading every batch's keys cost a million
/// key decodings after a million inserts. It may say a batch holds a key it does not (about
/// one batch in 1,400 per key, at sixteen bits and seven probes per key: each such batch is
/// read for nothing); never the reverse. Filters written with ten bits per key (before
/// 2026-11-27) read as well: the probes are the same, and a filter's size gives its bits.
/// Hashes are FNV-1a over the key's tagged encoding, so a filter reads the same in every
/// process.
struct KeyFilter {
    private(set) var words: [UInt64]
    private static let bitsPerKey = 16
    private static let probes = 7

    init(keys: some Collection<Value>) {
        let bits = max(64, (keys.count * Self.bitsPerKey + 63) / 64 * 64)
        words = [UInt64](repeating: 0, count: bits / 64)
        for key in keys {
            let (first, step) = Self.hashes(of: key)
            for probe in 0..<UInt64(Self.probes) {
                let bit = Int((first &+ probe &* step) % UInt64(bits))
                words[bit / 64] |= 1 << UInt64(bit % 64)
            }
        }
    }

    /// A filter as stored; nil for bytes that are not one.
    init?(encoded data: Data) {
        guard !data.isEmpty, data.count % 8 == 0 else { return nil }
        let count = data.count / 8
        words = data.withUnsafeBytes { buffer in
            [UInt64](unsafeUninitializedCapacity: count) { words, initialized in
                for index in 0..<count {
                    words[index] = UInt64(
                        littleEndian: buffer.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
                }
                initialized = count
            }
        }
    }

    var encoded: Data {
        var data = Data(capacity: words.count * 8)
        for word in words { withUnsafeBytes(of: word.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// False when the batch surely does not hold `key`.
    func mayContain(_ key: Value) -> Bool { mayContain(hashes: Self.hashes(of: key)) }

    /// `mayContain(_:)` of the key whose ``hashes(of:)`` these are: what checks one key
    /// against many filters hashes it once.
    func mayContain(hashes: (first: UInt64, step: UInt64)) -> Bool {
        let bits = UInt64(words.count * 64)
        let (first, step) = hashes
        for probe in 0..<UInt64(Self.probes) {
            let bit = Int((first &+ probe &* step) % bits)
            if words[bit / 64] & (1 << UInt64(bit % 64)) == 0 { return false }
        }
        return true
    }

    /// The two hashes the probes are made of (double hashing): FNV-1a over the key's tagged
    /// encoding, and from it a second (splitmix64's finalizer), odd so that the probes cycle.
    static func hashes(of key: Value) -> (first: UInt64, step: UInt64) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        switch key {
        case .blob(let data):
            add(4)
            // Through its buffer, not byte by byte: `Data`'s iterator reads its storage under
            // a run-time exclusivity check for every byte (2.6% of an export and import).
            let start = hash
            hash = data.withUnsafeBytes { bytes in
                var hash = start
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
                return hash
            }
        case .text(let text):
            add(3)
            for byte in text.utf8 { add(byte) }
        default:
            for byte in key.encodedKey { add(byte) }
        }
        var second = hash &+ 0x9e37_79b9_7f4a_7c15
        second = (second ^ (second >> 30)) &* 0xbf58_476d_1ce4_e5b9
        second = (second ^ (second >> 27)) &* 0x94d0_49bb_1331_11eb
        return (hash, (second ^ (second >> 31)) | 1)
    }
}
