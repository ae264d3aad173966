import Crypto

/// A 256-bit unsigned sum of SHA-256 hashes, modulo 2^256: how row hashes combine into a
/// ``SyncDigest``. Addition, unlike XOR, does not cancel a row counted twice, and the order of
/// the rows does not matter, so parts computed apart (frames deflated in parallel) add up.
struct DigestSum: Sendable, Hashable {
    /// Least significant first.
    private var limbs: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// Adds a hash, read as a big-endian number.
    mutating func add(_ hash: SHA256.Digest) {
        add(hash.withUnsafeBytes { Self.words(bigEndian: $0) })
    }

    /// 32 bytes as four 64-bit words, least significant first.
    private static func words(bigEndian bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64, UInt64, UInt64) {
        func word(_ index: Int) -> UInt64 {
            var value: UInt64 = 0
            for offset in 0..<8 { value = value << 8 | UInt64(bytes[index * 8 + offset]) }
            return value
        }
        return (word(3), word(2), word(1), word(0))
    }

    /// Adds another sum.
    mutating func add(_ other: DigestSum) { add(other.limbs) }

    private mutating func add(_ words: (UInt64, UInt64, UInt64, UInt64)) {
        var carry = false
        func step(_ a: inout UInt64, _ b: UInt64) {
            let (first, overflowA) = a.addingReportingOverflow(b)
            let (second, overflowB) = first.addingReportingOverflow(carry ? 1 : 0)
            a = second
            carry = overflowA || overflowB
        }
        step(&limbs.0, words.0)
        step(&limbs.1, words.1)
        step(&limbs.2, words.2)
        step(&limbs.3, words.3)
    }

    /// The sum as 32 big-endian bytes.
    var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(32)
        for word in [limbs.3, limbs.2, limbs.1, limbs.0] {
            for shift in stride(from: 56, through: 0, by: -8) {
                result.append(UInt8(truncatingIfNeeded: word >> shift))
            }
        }
        return result
    }

    init() {}

    static func == (lhs: DigestSum, rhs: DigestSum) -> Bool { lhs.bytes == rhs.bytes }
    func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}
