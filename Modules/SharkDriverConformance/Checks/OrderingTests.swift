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

    /// Descending orders on an indexed column and on the key, with ties, NULLs (last when
    /// descending) and windows: every window is the same slice of the whole ordered result,
    /// and a filter the index cannot answer still applies. (The memory engine walks the index
    /// or the table backwards and stops at the window's end.)
    func descendingWindows(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = (0..<120).map { Person(name: "n\(($0 * 7) % 13)", age: ($0 * 37) % 11, payrollNumber: $0) }
        for (index, person) in people.enumerated() where index % 4 != 0 { person.email = "e\(index % 9)" }
        try store.commit(people)
        let all = try Person.query(in: store)
        let queries: [(String, Query<Person>)] = [
            ("an indexed column with ties", all.orderByDescending(\.age)),
            ("another indexed column", all.orderByDescending(\.name)),
            ("the key", all.orderByDescending(\.id)),
            ("a column with NULLs", all.orderByDescending(\.email)),
            ("an indexed column and a filter", all.where(\.email != nil).orderByDescending(\.age)),
            ("the key and a filter", all.where(\.email == "e3").orderByDescending(\.id)),
        ]
        for (name, query) in queries {
            let whole = try query.fetch().map(\.id)
            #expect(Set(whole).count == whole.count, "\(name)")
            for (offset, limit) in [(0, 1), (0, 7), (5, 10), (100, 50), (200, 5)] {
                let window = try query.offset(offset).limit(limit).fetch().map(\.id)
                #expect(
                    window == Array(whole.dropFirst(offset).prefix(limit)), "\(name), offset \(offset) limit \(limit)")
                #expect(try query.offset(offset).limit(limit).count() == window.count, "\(name): the count")
            }
        }
        // Ties in the order of the key: ages descending, then keys ascending.
        let byAge = try all.orderByDescending(\.age).fetch()
        for (earlier, later) in zip(byAge, byAge.dropFirst()) {
            #expect(earlier.age > later.age || (earlier.age == later.age && earlier.id < later.id))
        }
        // NULLs last when descending.
        let emails = try all.orderByDescending(\.email).fetch().map(\.email)
        #expect(emails.drop { $0 != nil }.allSatisfy { $0 == nil })
    }
}
