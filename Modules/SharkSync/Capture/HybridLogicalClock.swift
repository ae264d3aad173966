/// A hybrid logical clock: 48 bits of milliseconds since 1970 and a 16-bit counter, packed
/// in one `UInt64` so that timestamps compare as numbers.
///
/// Each replica issues timestamps that never go backwards, even when its wall clock does, and
/// that come after every timestamp it has received: a change made after seeing another one
/// always wins over it, whatever the two machines' clocks say. Ties between replicas are
/// broken by the site id (see ``ColumnVersion``).
struct HybridLogicalClock: Sendable {
    /// The last timestamp issued or received.
    private(set) var last: UInt64

    /// The latest timestamp a store keeps (its clock is stored as an `Int64`): year 6429.
    /// Files with later ones are refused; the clock itself stops there rather than wrap.
    static let maximum = UInt64(Int64.max)

    init(last: UInt64 = 0) { self.last = min(last, Self.maximum) }

    static func timestamp(milliseconds: UInt64, counter: UInt16) -> UInt64 {
        (milliseconds & 0xFFFF_FFFF_FFFF) << 16 | UInt64(counter)
    }

    /// A timestamp for a local change at wall-clock time `now` (milliseconds).
    mutating func tick(now: UInt64) -> UInt64 {
        let physical = Self.timestamp(milliseconds: now, counter: 0)
        // The counter rolls into the millisecond field when 65,536 changes share one: still
        // increasing, still ahead of the wall clock by at most a few milliseconds.
        last = min(max(physical, last &+ 1), Self.maximum)
        return last
    }

    /// Takes note of a timestamp received from another replica.
    mutating func receive(_ timestamp: UInt64) {
        last = min(max(last, timestamp), Self.maximum)
    }
}
