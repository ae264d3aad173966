/// An aggregate a query can compute over its matches, in the engine, the same on every
/// driver: NULLs are skipped, and an empty set gives NULL (nil). Sums and averages are exact
/// whatever the rows' order (see `ExactSum` and docs/values.md).
///
/// - `sum`: the exact integer while every input is an integer (a sum that leaves the 64-bit
///   range fails with ``SharkError/invalidValue(_:)``); with a real among them, the exact sum
///   rounded once to the nearest `Double`; with a decimal among them, to the nearest `Decimal`.
/// - `average`: the exact sum divided by the count, rounded once: a `Double`, or a `Decimal`
///   for decimals.
/// - `minimum`, `maximum`: the smallest or largest value in the order of values (numbers, then
///   text, then blobs: docs/values.md), with its own type.
///
/// ```swift
/// let total = try Person.query(in: store).sum(\.age)        // Int?
/// let oldest = try Person.query(in: store).max(\.age)       // Int?
/// ```
public enum AggregateFunction: String, Sendable, Hashable {
    case sum
    case average = "avg"
    case minimum = "min"
    case maximum = "max"
}
