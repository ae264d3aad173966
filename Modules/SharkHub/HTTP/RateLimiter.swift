import Foundation
import NIOConcurrencyHelpers

/// Requests per minute for each key (a device, an address), as token buckets: a key may
/// spend its whole minute at once, then one request every `60 / perMinute` seconds. Each hub
/// process counts on its own, so behind a load balancer over `n` processes a key gets up to
/// `n` times its limit. Memory stays bounded: buckets that filled up again are dropped when
/// there are many.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let perMinute: Int
    private let buckets = NIOLockedValueBox([String: Bucket]())
    private let clock: @Sendable () -> Double

    /// A limiter of `perMinute` requests per key; 0 lets everything through.
    init(perMinute: Int, clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.perMinute = max(0, perMinute)
        self.clock = clock
    }

    /// Spends one request of `key`: nil when allowed, else the seconds until the next one is.
    func spend(_ key: String) -> Int? {
        guard perMinute > 0 else { return nil }
        let now = clock()
        let capacity = Double(perMinute)
        let rate = capacity / 60
        return buckets.withLockedValue { buckets in
            if buckets.count > 10_000 {
                // Keys idle long enough to be full again hold nothing worth keeping.
                buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < capacity }
            }
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated) * rate)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
    }
}
