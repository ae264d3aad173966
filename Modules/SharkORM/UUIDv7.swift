import Foundation
import Synchronization

extension UUID {
    /// A new time-ordered UUID (version 7, RFC 9562): 48 bits of Unix milliseconds, then
    /// random bits, with a counter so that UUIDs made in the same millisecond by this process
    /// still sort in creation order. New keys of UUID-keyed models use it, so inserts land at
    /// the end of the key index instead of at random places.
    ///
    /// ```swift
    /// let a = UUID.v7(), b = UUID.v7()
    /// assert(a.uuidString < b.uuidString)
    /// ```
    public static func v7() -> UUID {
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        let (milliseconds, sequence) = UUIDv7Clock.shared.withLock { state -> (UInt64, UInt16) in
            if now > state.milliseconds {
                state.milliseconds = now
                state.sequence = UInt16.random(in: 0..<0x400)
            } else {
                // Same (or an earlier) millisecond: count up, moving to the next millisecond
                // when the 12-bit counter overflows.
                state.sequence += 1
                if state.sequence > 0xFFF {
                    state.milliseconds += 1
                    state.sequence = 0
                }
            }
            return (state.milliseconds, state.sequence)
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - UInt64(i)))) }
        bytes[6] = 0x70 | UInt8(sequence >> 8)
        bytes[7] = UInt8(truncatingIfNeeded: sequence)
        var random = SystemRandomNumberGenerator()
        for i in 8..<16 { bytes[i] = random.next() }
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

private enum UUIDv7Clock {
    struct State {
        var milliseconds: UInt64 = 0
        var sequence: UInt16 = 0
    }
    static let shared = Mutex(State())
}
