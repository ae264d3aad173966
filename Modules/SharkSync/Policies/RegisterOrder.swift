@_spi(SharkReplication) import SharkORM

/// The order ``MergePolicy/maximum(_:)`` and ``MergePolicy/minimum(_:)`` keep: numbers by
/// value (an integer column's integers, a real column's reals; NULL, which a non-optional
/// column never holds, below every number).
enum RegisterOrder {
    /// Whether `a` is below `b`.
    static func isBelow(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y
        case (.real(let x), .real(let y)): return x < y
        case (.integer(let x), .real(let y)): return Double(x) < y
        case (.real(let x), .integer(let y)): return x < Double(y)
        case (.null, .null): return false
        case (.null, _): return true
        default: return false
        }
    }

    /// Whether `incoming` (at `incomingVersion`) beats `local` (at `localVersion`) under `rule`:
    /// the greater value for a maximum, the lesser for a minimum, and for equal values the
    /// later version. A join: every replica keeps the same whatever the order.
    static func wins(
        _ incoming: Value, at incomingVersion: ColumnVersion, over local: Value, at localVersion: ColumnVersion,
        rule: MergeRule
    ) -> Bool {
        let (low, high) = rule == .minimum ? (local, incoming) : (incoming, local)
        if isBelow(high, low) { return true }
        if isBelow(low, high) { return false }
        return incomingVersion.wins(over: localVersion)
    }
}
