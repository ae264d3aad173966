import Foundation
import SharkORM
import Testing

@Suite("UUID v7")
struct UUIDv7Tests {
    @Test("version 7, RFC 9562 variant, the time in the first 48 bits, creation order kept")
    func layout() {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let ids = (0..<5_000).map { _ in UUID.v7() }
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        for id in ids {
            let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 7)
            #expect(bytes[8] >> 6 == 0b10)
            let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            // The counter may move past the clock by a millisecond when it overflows.
            #expect(milliseconds >= before && milliseconds <= after + 5)
        }
        #expect(ids.map(\.uuidString) == ids.map(\.uuidString).sorted())
        #expect(Set(ids).count == ids.count)
        // The random half differs from one UUID to the next.
        #expect(Set(ids.map { withUnsafeBytes(of: $0.uuid) { Array($0[9...]) } }).count == ids.count)
    }
}
