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
    public var initialDelay: Duration
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

    /// The wait before attempt `attempt + 1` (the first retry is `attempt` 1).
    func delay(after attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, attempt) where delay < maximumDelay { delay *= 2 }
        delay = min(delay, maximumDelay)
        return delay + delay * Double.random(in: 0..<0.25)
    }
}
