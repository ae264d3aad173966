import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// How traces print durations.
@Suite("Durations in traces")
struct DurationTextTests {
    @Test("durations read as three significant digits and the unit that fits")
    func readableDurations() {
        #expect(Duration.nanoseconds(0).readableText == "0 ns")
        #expect(Duration.nanoseconds(840).readableText == "840 ns")
        #expect(Duration.nanoseconds(19_600).readableText == "19.6 µs")
        #expect(Duration.nanoseconds(3_520_000).readableText == "3.52 ms")
        #expect(Duration.nanoseconds(125_400_000).readableText == "125 ms")
        #expect(Duration.milliseconds(1_250).readableText == "1.25 s")
        #expect(Duration.seconds(3_600).readableText == "3600 s")
        #expect(Duration.nanoseconds(999_999).readableText == "1000 µs")
    }
}
