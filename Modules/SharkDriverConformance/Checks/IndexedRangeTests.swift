import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// A model with an indexed optional column: index ranges start and end among NULLs.
@Model
final class Reading {
    var level: Int?
    var label: String = ""

    static let indexes: [Index<Reading>] = [.on(\.level)]

    init(level: Int?, label: String) {
        self.level = level
        self.label = label
    }
}

/// Range predicates answered from an index: the rows a range of index entries holds must be
/// exactly the rows the predicate accepts, NULLs included, on every driver.
struct IndexedRangeTests {

    func rangesWithNulls(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let stored: [Int?] = [nil, 3, nil, 5, 7, 5, nil, 10, -1]
        try store.commit(stored.enumerated().map { Reading(level: $0.element, label: "r\($0.offset)") })
        func levels(_ predicate: QueryPredicate<Reading>) throws -> [Int?] {
            try Reading.query(in: store).where(predicate).fetch().map(\.level).sorted { ($0 ?? .min) < ($1 ?? .min) }
        }
        #expect(try levels(\.level >= 5) == [5, 5, 7, 10])
        #expect(try levels(\.level > 5) == [7, 10])
        #expect(try levels(\.level == 5) == [5, 5])
        #expect(try levels(\.level < 5) == [-1, 3])  // no lower bound: the NULLs must not slip in
        #expect(try levels(\.level <= 3) == [-1, 3])
        #expect(try levels(\.level >= 3 && \.level <= 7) == [3, 5, 5, 7])
        #expect(try levels(.isNil(\.level)) == [nil, nil, nil])
        #expect(try levels(\.level >= 5 && \.label != "r3") == [5, 7, 10])
    }
}
