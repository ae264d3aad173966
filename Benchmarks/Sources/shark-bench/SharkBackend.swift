import Foundation
import SharkORM

/// The workloads through SharkORM's public API, on any store.
final class SharkBackend: Backend {
    private let store: Store
    private let cleanup: () -> Void
    private var fetched: [Row10] = []
    private var prepared: [Row10] = []

    init(_ store: Store, cleanup: @escaping () -> Void = {}) throws {
        self.store = store
        self.cleanup = cleanup
        try store.prepare(Row10.self)
    }

    func prepareInsert(_ rows: [InputRow]) {
        prepared = rows.map(Row10.init)
    }

    func insert(_ rows: [InputRow]) throws {
        // Kept until the backend closes: freeing the objects is not part of an insert.
        try store.commit(prepared)
    }

    func fetchAll() throws -> Int {
        fetched = try Row10.query(in: store).fetch()
        return fetched.count
    }

    func ranges(_ starts: [Int], width: Int) throws -> Int {
        var rows = 0
        for start in starts {
            rows += try Row10.query(in: store).where(.between(\.a, start, start + width - 1)).fetch().count
        }
        return rows
    }

    func updateAll() throws {
        for object in fetched { object.b = InputRow.updatedB(a: object.a) }
        try store.commit(fetched)
    }

    func lookups(_ keys: [Int64]) throws -> Int {
        var found = 0
        for key in keys where try store.find(Row10.self, id: key) != nil { found += 1 }
        return found
    }

    func sumOfH() throws -> Int64 {
        try Row10.query(in: store).sum(\.h) ?? 0
    }

    func close() {
        store.close()
        cleanup()
    }
}
