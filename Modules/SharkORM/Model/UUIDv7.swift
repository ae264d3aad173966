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
        // One draw of eight random bytes: a generator asked byte by byte makes a system call
        // for each on Linux, and every new object of a UUID-keyed model gets a key here.
        var generator = SystemRandomNumberGenerator()
        let random: UInt64 = generator.next()
        func byte(_ value: UInt64, _ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: value >> shift) }
        return UUID(
            uuid: (
                byte(milliseconds, 40), byte(milliseconds, 32), byte(milliseconds, 24), byte(milliseconds, 16),
                byte(milliseconds, 8), byte(milliseconds, 0), 0x70 | UInt8(sequence >> 8),
                UInt8(truncatingIfNeeded: sequence), 0x80 | (byte(random, 56) & 0x3F), byte(random, 48),
                byte(random, 40), byte(random, 32), byte(random, 24), byte(random, 16), byte(random, 8),
                byte(random, 0)
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
