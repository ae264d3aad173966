import Foundation
@_spi(SharkReplication) import SharkORM

/// When, where and in which incarnation of its row a column's value was written: what
/// per-column last-writer-wins compares.
///
/// The order is the row's causal length first (a value written after the row was removed
/// and inserted again beats any value of an earlier incarnation), then the hybrid logical
/// timestamp, then the site id's bytes, so two replicas never disagree on a winner. The
/// sequence number says which transaction of its site wrote it: what version vectors count.
struct ColumnVersion: Hashable, Sendable {
    var causalLength: UInt64
    var timestamp: UInt64
    var site: UUID
    var sequence: UInt64

    /// Whether `self` wins over `other`.
    func wins(over other: ColumnVersion) -> Bool {
        if causalLength != other.causalLength { return causalLength > other.causalLength }
        if timestamp != other.timestamp { return timestamp > other.timestamp }
        return SiteOrder.precedes(other.site, site)
    }
}

/// The total order of site ids used to break ties: their 16 bytes, compared in order.
enum SiteOrder {
    static func precedes(_ a: UUID, _ b: UUID) -> Bool {
        withUnsafeBytes(of: a.uuid) { left in
            withUnsafeBytes(of: b.uuid) { right in left.lexicographicallyPrecedes(right) }
        }
    }
}

/// The sync state of one row: its causal length (odd while it exists, even once removed;
/// each removal and re-insertion adds one) and the version of each column's value.
///
/// Compact on purpose: most rows are written once, so every column shares the `base`
/// version and only columns updated since carry one of their own. For a removed row, `base`
/// is the removal's version and no column has one.
struct RowState: Hashable, Sendable {
    var causalLength: UInt64
    var base: ColumnVersion
    var overrides: [String: ColumnVersion] = [:]
    /// What columns with a merge policy keep (nil for a row without any: most rows, whose
    /// states then copy no more than before policies existed).
    private var policy: PolicyState?

    /// The totals of each ``MergePolicy/counter(_:)`` column, one per site that added to it
    /// in this incarnation of the row (see ``CounterEntry``).
    var counters: [String: [CounterEntry]] {
        get { policy?.counters ?? [:] }
        set { setPolicy { $0.counters = newValue } }
    }

    /// The value of each ``MergePolicy/maximum(_:)`` or ``MergePolicy/minimum(_:)`` column
    /// as sync last settled it: what a local write may not lower (or raise).
    var registers: [String: Value] {
        get { policy?.registers ?? [:] }
        set { setPolicy { $0.registers = newValue } }
    }

    /// The writes each resolver column's value includes, one per site (see
    /// ``Contribution``).
    var contributions: [String: [Contribution]] {
        get { policy?.contributions ?? [:] }
        set { setPolicy { $0.contributions = newValue } }
    }

    /// Whether a column with a merge policy keeps anything here.
    var hasPolicyState: Bool { policy != nil }

    /// Changes the policy state, back to nil once it holds nothing (so that equal states
    /// compare equal).
    private mutating func setPolicy(_ change: (inout PolicyState) -> Void) {
        var state = policy ?? PolicyState()
        change(&state)
        policy = state.counters.isEmpty && state.registers.isEmpty && state.contributions.isEmpty ? nil : state
    }

    init(causalLength: UInt64, base: ColumnVersion, overrides: [String: ColumnVersion] = [:]) {
        self.causalLength = causalLength
        self.base = base
        self.overrides = overrides
    }

    var exists: Bool { causalLength % 2 == 1 }

    func version(of column: String) -> ColumnVersion { overrides[column] ?? base }

    /// Every version the row refers to: the base and the overrides.
    var versions: [ColumnVersion] { [base] + overrides.values }

    /// A local insert (or an upsert, or a re-insertion after a removal): every column written
    /// at `stamp`, in a new incarnation when the row was removed.
    mutating func recordInsert(_ stamp: TransactionStamp) {
        if !exists {
            causalLength += 1
            policy = nil
        }
        base = stamp.version(causalLength: causalLength)
        overrides = [:]
    }

    /// A local update of `columns` (all of them when `allColumns`).
    mutating func recordUpdate(_ columns: [String], allColumns: Bool, _ stamp: TransactionStamp) {
        let written = stamp.version(causalLength: causalLength)
        if allColumns {
            base = written
            overrides = [:]
        } else {
            for column in columns { overrides[column] = written }
        }
    }

    /// A local removal.
    mutating func recordRemoval(_ stamp: TransactionStamp) {
        if exists { causalLength += 1 }
        base = stamp.version(causalLength: causalLength)
        overrides = [:]
        policy = nil
    }

    static func inserted(_ stamp: TransactionStamp) -> RowState {
        RowState(causalLength: 1, base: stamp.version(causalLength: 1))
    }
}

/// The part of a ``RowState`` that columns with a merge policy keep.
struct PolicyState: Hashable, Sendable {
    var counters: [String: [CounterEntry]] = [:]
    var registers: [String: Value] = [:]
    var contributions: [String: [Contribution]] = [:]
}

/// What a local transaction stamps on the columns it writes: its timestamp, this site, and
/// its sequence number among this site's transactions.
struct TransactionStamp: Sendable {
    var timestamp: UInt64
    var site: UUID
    var sequence: UInt64

    func version(causalLength: UInt64) -> ColumnVersion {
        ColumnVersion(causalLength: causalLength, timestamp: timestamp, site: site, sequence: sequence)
    }
}
