/// Durations as the whole nanoseconds a latency histogram records.
enum Nanoseconds {
    /// The nanoseconds in `duration`, or 0 when it is negative: two threads' clock readings
    /// can land in either order, and a histogram of `UInt64` has no place for less than zero.
    static func of(_ duration: Duration) -> UInt64 {
        let parts = duration.components
        let total = parts.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !total.overflow else { return parts.seconds < 0 ? 0 : UInt64.max }
        let nanoseconds = total.partialValue.addingReportingOverflow(parts.attoseconds / 1_000_000_000)
        guard !nanoseconds.overflow else { return parts.seconds < 0 ? 0 : UInt64.max }
        return UInt64(max(0, nanoseconds.partialValue))
    }

    /// The nanoseconds from `start` to `end`, 0 if `end` came first.
    static func elapsed(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> UInt64 {
        of(end - start)
    }
}
