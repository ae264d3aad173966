/// What an error says, for people, and why it happened, for code: the payload of the error
/// cases that used to carry only text (``SharkError/invalidQuery(_:)`` and its siblings, and
/// SharkSync's `SyncError`).
///
/// ```swift
/// do {
///     try store.rows("DELETE FROM Person")
/// } catch SharkError.invalidQuery(let detail) where detail.reason == .rawStatementMayWrite {
///     try store.execute("DELETE FROM Person")     // a write goes through execute
/// }
/// ```
///
/// Match on ``reason``, never on ``message``: the message is prose that may be reworded, the
/// reason is API. Each reason, and when it is thrown, is listed in docs/errors.md.
///
/// A detail reads like the text it replaces (`detail.contains("…")`, `"\(detail)"`), and a
/// string literal makes one (`SharkError.invalidQuery("…")`, with no reason), so code written
/// against the text payloads compiles unchanged. Two details are equal when their messages
/// are: the reason follows from the message.
public struct ErrorDetail<Reason: Hashable & Sendable>: Sendable, Hashable, CustomStringConvertible,
    ExpressibleByStringInterpolation
{
    /// Why the error was thrown; nil only for a detail made from text alone (a literal).
    public var reason: Reason?
    /// The explanation for people: what went wrong, and often what to do instead.
    public var message: String

    /// A detail with its reason.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// A detail made from text alone, with no reason (what a string literal makes).
    public init(stringLiteral message: String) {
        self.reason = nil
        self.message = message
    }

    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(stringLiteral: String(stringInterpolation: stringInterpolation))
    }

    public var description: String { message }

    /// Whether the message contains `other` (as `String.contains` does).
    public func contains(_ other: some StringProtocol) -> Bool { message.contains(other) }

    /// Whether the message begins with `prefix`.
    public func hasPrefix(_ prefix: some StringProtocol) -> Bool { message.hasPrefix(prefix) }

    /// Whether the message ends with `suffix`.
    public func hasSuffix(_ suffix: some StringProtocol) -> Bool { message.hasSuffix(suffix) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.message == rhs.message }

    public func hash(into hasher: inout Hasher) { hasher.combine(message) }
}
