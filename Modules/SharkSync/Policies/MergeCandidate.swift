import Foundation

/// One of the two values an app resolver (`MergePolicy.resolved(_:as:by:)`) joins:
/// the property's value and the version it was written at.
///
/// ```swift
/// @Model
/// final class Poster {
///     var id: UUID
///     var title: String = ""
///     init() { id = UUID.v7() }
/// }
///
/// extension Poster: SyncMerging {
///     static let mergePolicies: [MergePolicy<Poster>] = [
///         // The longer title; of two as long, the greater text.
///         .resolved(\.title, as: "longer-title") { a, b in
///             (a.value.count, a.value) >= (b.value.count, b.value) ? a.value : b.value
///         }
///     ]
/// }
/// ```
public struct MergeCandidate<Value> {
    /// The property's value.
    public let value: Value
    /// When and where it was written; for a value a resolver joined, the greater of the two
    /// versions it joined.
    public let version: SyncVersion

    /// A candidate, for tests of a resolver: `value` written at `version`.
    public init(value: Value, version: SyncVersion) {
        self.value = value
        self.version = version
    }
}

extension MergeCandidate: Sendable where Value: Sendable {}

/// When, where and in which incarnation of its row a synced value was written. Versions are
/// totally ordered, and every replica orders them alike: a later incarnation of the row (a
/// removal and re-insertion since) first, then the hybrid logical clock, then the site. A
/// change made after seeing another has the greater version.
public struct SyncVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    let column: ColumnVersion

    init(_ column: ColumnVersion) { self.column = column }

    /// A version, for tests of a resolver: written by `site` at `time` (kept to the
    /// millisecond), as its `sequence`th transaction, in the first incarnation of its row.
    ///
    /// ```swift
    /// let early = SyncVersion(site: UUID(), time: Date(timeIntervalSince1970: 1), sequence: 1)
    /// let late = SyncVersion(site: UUID(), time: Date(timeIntervalSince1970: 2), sequence: 1)
    /// assert(early < late)
    /// ```
    public init(site: UUID, time: Date, sequence: UInt64) {
        let milliseconds = UInt64(max(0, min(time.timeIntervalSince1970 * 1000, Double(1 << 47))))
        column = ColumnVersion(
            causalLength: 1, timestamp: HybridLogicalClock.timestamp(milliseconds: milliseconds, counter: 0),
            site: site, sequence: sequence)
    }

    /// The replica that wrote the value.
    public var site: UUID { column.site }

    /// The writer's clock when it wrote the value (to the millisecond; a hybrid logical clock,
    /// so never before a value the writer had seen).
    public var time: Date { Date(timeIntervalSince1970: Double(column.timestamp >> 16) / 1000) }

    public static func < (lhs: SyncVersion, rhs: SyncVersion) -> Bool { rhs.column.wins(over: lhs.column) }

    public var description: String {
        "\(column.causalLength):\(column.timestamp)@\(column.site.uuidString.prefix(8))#\(column.sequence)"
    }
}
