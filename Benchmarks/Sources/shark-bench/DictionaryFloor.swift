import Foundation

/// The floor no store can beat: rows as structs in a `Dictionary` keyed by an `Int64`, with
/// no transactions, no durability and no index. Fetches build the same plain objects the raw
/// C loops build.
final class DictionaryFloor: Backend {
    private struct Stored {
        var a: Int, b: Int, c: Double, d: Double, e: String, f: String, g: Bool, h: Int64, i: String?, j: Date
    }

    private var rows: [Int64: Stored] = [:]

    func insert(_ input: [InputRow]) throws {
        for (n, row) in input.enumerated() {
            rows[Int64(n + 1)] = Stored(
                a: row.a, b: row.b, c: row.c, d: row.d, e: row.e, f: row.f, g: row.g, h: row.h, i: row.i, j: row.j)
        }
    }

    func fetchAll() throws -> Int {
        let objects = rows.map { key, stored in object(key, stored) }
        return objects.count
    }

    func ranges(_ starts: [Int], width: Int) throws -> Int { 0 }

    func updateAll() throws {
        // By key and index, not `for key in rows.keys`, which would copy the whole dictionary
        // on the first write.
        for key in 1...Int64(max(1, rows.count)) {
            guard let index = rows.index(forKey: key) else { continue }
            rows.values[index].b = InputRow.updatedB(a: rows.values[index].a)
        }
    }

    func removeEveryOther() throws -> Int {
        // The keys W2's fetch saw first, third…: keys 1, 3, 5… (the floor fetches in hash
        // order, so it removes by key rather than by fetch position).
        var removed = 0
        for key in stride(from: Int64(1), through: Int64(rows.count), by: 2) where rows.removeValue(forKey: key) != nil
        {
            removed += 1
        }
        return removed
    }

    func lookups(_ keys: [Int64]) throws -> Int {
        var found = 0
        for key in keys {
            if let stored = rows[key] {
                _ = object(key, stored)
                found += 1
            }
        }
        return found
    }

    func queries(_ values: [Int]) throws -> Int { 0 }  // no index on `a`: not run

    func sumOfH() throws -> Int64 {
        rows.values.reduce(0) { $0 + $1.h }
    }

    func close() { rows = [:] }

    private func object(_ key: Int64, _ stored: Stored) -> PlainRow10 {
        let object = PlainRow10()
        object.id = key
        (object.a, object.b, object.c, object.d, object.e) = (stored.a, stored.b, stored.c, stored.d, stored.e)
        (object.f, object.g, object.h, object.i, object.j) = (stored.f, stored.g, stored.h, stored.i, stored.j)
        return object
    }

    func prepareJoin(members: Int, teams: Int) throws {}
    func joinPages(_ starts: [Int64], width: Int) throws -> Int { 0 }  // not run: see `supports`
}
