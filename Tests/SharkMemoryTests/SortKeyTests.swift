import Foundation
import SharkORM
import Testing

@testable import SharkDriverConformance
@testable import SharkMemory

/// The form the memory engine's sorted lists compare keys in (short blobs as integers)
/// orders every pair of values as SQLite does, and gives back the value it was made from.
@Suite("Sort keys")
struct SortKeyTests {
    /// Blobs around the 16 bytes a short blob holds, sharing prefixes and ending in zero
    /// bytes (the padding must not make "ab" equal "ab\0"), among every other storage class.
    private func values(_ random: inout SeededGenerator) -> [Value] {
        var values: [Value] = [.null, .integer(0), .integer(-1), .real(0.5), .text(""), .text("ab"), .blob(Data())]
        let stems: [[UInt8]] = [[], [0], [0xFF], [0x61, 0x62], Array(repeating: 0, count: 15)]
        for _ in 0..<300 {
            let stem = stems[Int(random.next() % UInt64(stems.count))]
            let length = Int(random.next() % 20)
            let tail = (0..<length).map { _ in random.next() % 3 == 0 ? 0 : UInt8(random.next() % 256) }
            values.append(.blob(Data(stem + tail)))
        }
        values.append(.blob(Data(repeating: 0, count: 16)))
        values.append(.blob(Data(repeating: 0, count: 17)))
        values.append(.blob(Data(repeating: 0xFF, count: 16)))
        return values
    }

    @Test("compares as SQLite's comparison and gives back its value")
    func agreesWithTheComparison() {
        var random = SeededGenerator(state: 20_261_127)
        let values = values(&random)
        let keys = values.map(SortKey.init)
        for (value, key) in zip(values, keys) {
            #expect(key.value == value)
            #expect(key.storageType == value.storageType)
        }
        for (left, leftKey) in zip(values, keys) {
            for (right, rightKey) in zip(values, keys) {
                let expected = SQLiteSemantics.compare(left, right)
                #expect(SortKey.compare(leftKey, rightKey) == expected, "\(left) against \(right)")
                // A short blob against a long one made from the same bytes, as a bound may be.
                if case .blob(let data) = right {
                    #expect(SortKey.compare(leftKey, .blob(data)) == expected, "\(left) against \(right)")
                }
            }
        }
    }
}
