/// An aggregate a query can compute over its matches, in the engine, with SQLite's rules on
/// every driver: NULLs are skipped, and an empty set gives NULL (nil).
///
/// - `sum`: an integer while every input is an integer, a real as soon as one is not; a sum
///   that leaves the 64-bit range fails with ``SharkError/invalidValue(_:)``.
/// - `average`: always a real.
/// - `minimum`, `maximum`: the smallest or largest value in SQLite's order (numbers, then
///   text, then blobs), with its own type.
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
