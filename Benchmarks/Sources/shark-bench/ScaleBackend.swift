import CSQLite
import Foundation
import SharkORM

/// What the scale family (Z) asks of a backend that already holds N rows: one operation at a
/// time, each prepared untimed (an app has its object before it saves it) and handed back as
/// the action the clock times.
protocol ScaleBackend: AnyObject {
    /// Inserts `rows` in one transaction, untimed: how the store reaches N rows.
    func fill(_ rows: [InputRow]) throws
    /// A transaction that inserts `rows` as new rows.
    func commitNew(_ rows: [InputRow]) throws -> ScaleAction
    /// Reads the row whose key is `key` into an object; the action throws when it is missing.
    func lookup(_ key: Int64) -> ScaleAction
    /// A transaction that changes column `b` of the row whose key is `key`.
    func update(_ key: Int64) throws -> ScaleAction
    /// A transaction that removes the row whose key is `key`.
    func remove(_ key: Int64) throws -> ScaleAction
    /// Counts every row, without a filter; the action throws when the count is not `expected`.
    func count(expected: Int) -> ScaleAction
    /// A read transaction that looks up one key: the cost of taking a read snapshot.
    func snapshot(_ key: Int64) -> ScaleAction?
    /// `count` empty savepoints inside one write transaction, each timed alone: seconds
    /// each; nil where there are no transactions.
    func savepoints(_ count: Int) throws -> [Double]?
    /// Reads every row through `batch(size:)` (ordered by `h`, descending, when `ordered`)
    /// and returns the seconds each window took to arrive; nil where there is no such API.
    func windows(size: Int, ordered: Bool) throws -> [Double]?
    /// The bytes of its files, when it has any.
    var fileBytes: Int? { get }
    func close()
}

/// One timed operation.
typealias ScaleAction = () throws -> Void

// MARK: SharkORM, on any store

/// The scale operations through SharkORM's public API.
final class SharkScale: ScaleBackend {
    private let store: Store
    private let path: String?

    init(_ store: Store, path: String?) throws {
        self.store = store
        self.path = path
        try store.prepare(Row10.self)
    }

    func fill(_ rows: [InputRow]) throws { try store.commit(rows.map(Row10.init)) }

    func commitNew(_ rows: [InputRow]) throws -> ScaleAction {
        let objects = rows.map(Row10.init)
        return { [store] in try store.commit(objects) }
    }

    func lookup(_ key: Int64) -> ScaleAction {
        { [store] in
            guard try store.find(Row10.self, id: key) != nil else { throw ScaleError.missing(key) }
        }
    }

    func update(_ key: Int64) throws -> ScaleAction {
        guard let object = try store.find(Row10.self, id: key) else { throw ScaleError.missing(key) }
        return { [store] in
            object.b += 1
            try store.commit(object)
        }
    }

    func remove(_ key: Int64) throws -> ScaleAction {
        guard let object = try store.find(Row10.self, id: key) else { throw ScaleError.missing(key) }
        return { [store] in try store.remove(object) }
    }

    func count(expected: Int) -> ScaleAction {
        { [store] in
            let count = try Row10.query(in: store).count()
            guard count == expected else { throw ScaleError.wrongCount(count, expected) }
        }
    }

    func snapshot(_ key: Int64) -> ScaleAction? {
        { [store] in
            _ = try store.read { snapshot in try snapshot.find(Row10.self, id: key) }
        }
    }

    func windows(size: Int, ordered: Bool) throws -> [Double]? {
        var query = try Row10.query(in: store)
        if ordered { query = query.orderByDescending(\.h) }
        var seconds: [Double] = []
        var asked = ContinuousClock.now
        try query.batch(size: size) { _ in
            seconds.append((ContinuousClock.now - asked).seconds)
            asked = ContinuousClock.now
        }
        return seconds
    }

    func savepoints(_ count: Int) throws -> [Double]? {
        try store.write { tx in
            try (0..<count).map { _ in try measured { _ = try tx.transaction { _ in } } }
        }
    }

    var fileBytes: Int? { path.map(scaleFileBytes) }

    func close() {
        store.close()
        if let path { removeDatabaseFiles(path) }
    }
}

// MARK: The raw C loops

/// The same operations written by hand against the C API, with statements prepared once.
final class RawScale: ScaleBackend {
    private let database: RawDatabase
    private var api: UnsafeMutablePointer<shark_sqlite3_api> { database.api }
    private let insert: OpaquePointer
    private let select: OpaquePointer
    private let change: OpaquePointer
    private let delete: OpaquePointer
    private let countAll: OpaquePointer

    init(_ database: RawDatabase) {
        self.database = database
        insert = database.prepare("INSERT INTO Row10 (a,b,c,d,e,f,g,h,i,j) VALUES (?,?,?,?,?,?,?,?,?,?)")
        select = database.prepare("SELECT id,a,b,c,d,e,f,g,h,i,j FROM Row10 WHERE id = ?")
        change = database.prepare("UPDATE Row10 SET b = b + 1 WHERE id = ?")
        delete = database.prepare("DELETE FROM Row10 WHERE id = ?")
        countAll = database.prepare("SELECT count(*) FROM Row10")
    }

    func fill(_ rows: [InputRow]) throws { database.insert(rows) }

    func commitNew(_ rows: [InputRow]) throws -> ScaleAction {
        { [self] in
            database.exec("BEGIN IMMEDIATE")
            for row in rows { database.insertRow(row, with: insert) }
            database.exec("COMMIT")
        }
    }

    func lookup(_ key: Int64) -> ScaleAction {
        { [self] in
            guard database.lookups([key], with: select) == 1 else { throw ScaleError.missing(key) }
        }
    }

    func update(_ key: Int64) throws -> ScaleAction {
        { [self] in try writeOne(change, key) }
    }

    func remove(_ key: Int64) throws -> ScaleAction {
        { [self] in try writeOne(delete, key) }
    }

    /// One statement bound to `key` in its own transaction; it must change one row.
    private func writeOne(_ statement: OpaquePointer, _ key: Int64) throws {
        database.exec("BEGIN IMMEDIATE")
        _ = shark_bind_int64(api, statement, 1, key)
        guard shark_step(api, statement) == SHARK_SQLITE_DONE else { fatalError("write failed") }
        _ = shark_reset(api, statement)
        let changed = api.pointee.changes(database.db)
        database.exec("COMMIT")
        guard changed == 1 else { throw ScaleError.missing(key) }
    }

    func count(expected: Int) -> ScaleAction {
        { [self] in
            guard shark_step(api, countAll) == SHARK_SQLITE_ROW else { fatalError("count failed") }
            let count = Int(shark_column_int64(api, countAll, 0))
            _ = shark_reset(api, countAll)
            guard count == expected else { throw ScaleError.wrongCount(count, expected) }
        }
    }

    func snapshot(_ key: Int64) -> ScaleAction? {
        { [self] in
            database.exec("BEGIN")
            _ = database.lookups([key], with: select)
            database.exec("COMMIT")
        }
    }

    func savepoints(_ count: Int) throws -> [Double]? {
        database.exec("BEGIN IMMEDIATE")
        defer { database.exec("COMMIT") }
        return (0..<count).map { _ in measured { database.exec("SAVEPOINT s; RELEASE s") } }
    }

    func windows(size: Int, ordered: Bool) throws -> [Double]? { nil }

    var fileBytes: Int? { scaleFileBytes(database.path) }

    func close() {
        for statement in [insert, select, change, delete, countAll] { _ = api.pointee.finalize(statement) }
        database.close()
    }
}

// MARK: The Dictionary floor

/// Rows as structs in a `Dictionary`: the floor of every point operation, and of heap per row.
final class DictionaryScale: ScaleBackend {
    private struct Stored {
        var a: Int, b: Int, c: Double, d: Double, e: String, f: String, g: Bool, h: Int64, i: String?, j: Date
        init(_ row: InputRow) {
            (a, b, c, d, e, f, g, h, i, j) = (row.a, row.b, row.c, row.d, row.e, row.f, row.g, row.h, row.i, row.j)
        }
    }

    private var rows: [Int64: Stored] = [:]
    private var nextKey: Int64 = 1

    func fill(_ input: [InputRow]) throws { for row in input { add(row) } }

    private func add(_ row: InputRow) {
        rows[nextKey] = Stored(row)
        nextKey += 1
    }

    func commitNew(_ input: [InputRow]) throws -> ScaleAction {
        { [self] in for row in input { add(row) } }
    }

    func lookup(_ key: Int64) -> ScaleAction {
        { [self] in
            guard let stored = rows[key] else { throw ScaleError.missing(key) }
            let object = PlainRow10()
            object.id = key
            (object.a, object.b, object.c, object.d, object.e) = (stored.a, stored.b, stored.c, stored.d, stored.e)
            (object.f, object.g, object.h, object.i, object.j) = (stored.f, stored.g, stored.h, stored.i, stored.j)
        }
    }

    func update(_ key: Int64) throws -> ScaleAction {
        { [self] in
            guard let index = rows.index(forKey: key) else { throw ScaleError.missing(key) }
            rows.values[index].b += 1
        }
    }

    func remove(_ key: Int64) throws -> ScaleAction {
        { [self] in
            guard rows.removeValue(forKey: key) != nil else { throw ScaleError.missing(key) }
        }
    }

    func count(expected: Int) -> ScaleAction {
        { [self] in
            guard rows.count == expected else { throw ScaleError.wrongCount(rows.count, expected) }
        }
    }

    func snapshot(_ key: Int64) -> ScaleAction? { nil }
    func savepoints(_ count: Int) throws -> [Double]? { nil }
    func windows(size: Int, ordered: Bool) throws -> [Double]? { nil }
    var fileBytes: Int? { nil }
    func close() { rows = [:] }
}

enum ScaleError: Error, CustomStringConvertible {
    case missing(Int64)
    case wrongCount(Int, Int)
    case unsupported(String)

    var description: String {
        switch self {
        case .unsupported(let backend): "\(backend) does not run the scale family"

        case .missing(let key): "wrong result: no row with key \(key)"
        case .wrongCount(let count, let expected): "wrong result: counted \(count) rows, expected \(expected)"
        }
    }
}

/// The size of a database file and its write-ahead log.
func scaleFileBytes(_ path: String) -> Int {
    ["", "-wal"].reduce(0) { total, suffix in
        total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
    }
}

func removeDatabaseFiles(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}
