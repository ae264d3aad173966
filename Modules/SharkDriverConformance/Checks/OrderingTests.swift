import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// When rows come back in a defined order, on every driver: an ordering ends with the key as
/// its tie-break, and a window (limit, offset) of an unordered query is taken in key order;
/// an unordered query without a window may return its rows in any order.
struct OrderingTests {

    func unorderedIsAMultiset(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ages = [40, 20, 30, 20, 10]
        try store.commit(
            ages.enumerated().map { Person(name: "p\($0.offset)", age: $0.element, payrollNumber: $0.offset) })
        let found = try Person.query(in: store).where(\.age >= 20).fetch()
        #expect(found.map(\.age).sorted() == [20, 20, 30, 40])
    }

    func windowsFollowTheKey(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        // String keys inserted out of key order, with an index range on `value`'s order
        // differing from the keys': only a sort by key gives the expected pages.
        let keys = ["m", "c", "x", "a", "q", "f"]
        for (position, key) in keys.enumerated() {
            try store.commit(Setting(id: key, value: "\(9 - position)"))
        }
        let query = try Setting.query(in: store)
        let pages = try [query.limit(2).fetch(), query.offset(2).limit(2).fetch(), query.offset(4).fetch()]
        #expect(pages.map { $0.map(\.id) } == [["a", "c"], ["f", "m"], ["q", "x"]])
        #expect(try query.first()?.id == "a")
    }

    func tiesBreakByKey(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        for key in ["d", "b", "a", "c"] { try store.commit(Setting(id: key, value: "same")) }
        #expect(try Setting.query(in: store).orderBy(\.value).fetch().map(\.id) == ["a", "b", "c", "d"])
        #expect(try Setting.query(in: store).orderByDescending(\.value).fetch().map(\.id) == ["a", "b", "c", "d"])
    }
}
