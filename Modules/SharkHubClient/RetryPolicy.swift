import Foundation

/// How the client waits and tries again when the hub cannot be reached or answers with a
/// transient failure (a transport error, a 5xx, a 429): each wait doubles, from
/// ``initialDelay`` up to ``maximumDelay``, with up to a quarter of random jitter so that
/// many devices do not come back at once. After ``maximumAttempts`` the sync ends with
/// `SyncClientError.Reason.unavailable`; what it did by then is kept.
///
/// ```swift
/// var options = SyncClient.Options()
/// options.retry = RetryPolicy(maximumAttempts: 10, initialDelay: .seconds(1))
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// How many times one request is tried, the first included (at least 1).
    public var maximumAttempts: Int
    /// The wait before the first retry.
    public var initialDelay: Duration
    /// The longest wait between two attempts, before jitter, and the most of a hub's
    /// `Retry-After` the client honours. Above a day, a day.
    public var maximumDelay: Duration

    public init(
        maximumAttempts: Int = 6, initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// No retries: one attempt per request.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// The longest wait the client takes, whatever ``maximumDelay`` says: a day.
    static let longestDelay = Duration.seconds(86_400)

    /// The wait before attempt `attempt + 1` (the first retry is `attempt` 1). Computed in
    /// seconds as a `Double`, so no delay or attempt count a caller sets can overflow; a
    /// negative delay waits not at all.
    func delay(after attempt: Int) -> Duration {
        let ceiling = min(Self.seconds(maximumDelay), Self.seconds(Self.longestDelay))
        let doublings = attempt <= 1 ? 0 : Double(min(attempt - 1, 64))
        let delay = min(Self.seconds(initialDelay) * pow(2, doublings), ceiling)
        return .seconds(delay + delay * Double.random(in: 0..<0.25))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return max(0, Double(seconds) + Double(attoseconds) / 1e18)
    }
}
