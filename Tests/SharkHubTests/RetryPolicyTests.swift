import Foundation
import Testing

@testable import SharkHubClient

/// The client's waits between attempts: doubling, bounded, and never a trap whatever
/// durations and attempt counts an app sets.
@Suite("Hub: the client's retry policy")
struct RetryPolicyTests {
    @Test("each wait doubles from the first up to the longest, with at most a quarter of jitter")
    func doubling() {
        let policy = RetryPolicy(maximumAttempts: 10, initialDelay: .milliseconds(100), maximumDelay: .seconds(1))
        for (attempt, base) in [(1, 0.1), (2, 0.2), (3, 0.4), (4, 0.8), (5, 1.0), (9, 1.0)] {
            let delay = seconds(policy.delay(after: attempt))
            #expect(delay >= base * 0.999 && delay <= base * 1.25 * 1.001, "attempt \(attempt): \(delay) s")
        }
    }

    @Test("huge, negative and zero durations and attempt counts give a wait of zero to a day")
    func extremes() {
        let day = seconds(RetryPolicy.longestDelay)
        let durations: [Duration] = [
            .zero, .seconds(-5), .nanoseconds(1), .seconds(Int64.max), .seconds(Int64.min),
            Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999),
        ]
        for initial in durations {
            for maximum in durations {
                let policy = RetryPolicy(maximumAttempts: .max, initialDelay: initial, maximumDelay: maximum)
                for attempt in [Int.min, -1, 0, 1, 2, 63, 64, 65, 1_000, .max] {
                    let delay = seconds(policy.delay(after: attempt))
                    #expect(delay >= 0 && delay <= day * 1.25 * 1.001, "\(initial) \(maximum) \(attempt): \(delay)")
                }
            }
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
