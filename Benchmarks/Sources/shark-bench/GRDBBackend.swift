import Foundation
import GRDB

/// The workloads through GRDB records, written the fast way GRDB's documentation describes
/// (`init(row:)` and `encode(to:)` by hand rather than `Codable`), on a `DatabasePool` in WAL
/// mode with `synchronous = NORMAL`, the settings of the SharkORM SQLite driver.
final class GRDBBackend: Backend {
    let pool: DatabasePool
    private let path: String
    private var fetched: [Row10Record] = []
    private var prepared: [Row10Record] = []

    init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { db in
            try db.create(table: "Row10") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("a", .integer).notNull().indexed()
                table.column("b", .integer).notNull()
                table.column("c", .double).notNull()
                table.column("d", .double).notNull()
                table.column("e", .text).notNull()
                table.column("f", .text).notNull()
                table.column("g", .boolean).notNull()
                table.column("h", .integer).notNull()
                table.column("i", .text)
                table.column("j", .datetime).notNull()
            }
        }
    }

    func prepareInsert(_ rows: [InputRow]) {
        prepared = rows.map(Row10Record.init)
    }

    func insert(_ rows: [InputRow]) throws {
        try pool.write { db in
            for index in prepared.indices { try prepared[index].insert(db) }
        }
    }

    func fetchAll() throws -> Int {
        fetched = try pool.read { db in try Row10Record.fetchAll(db) }
        return fetched.count
    }

    func ranges(_ starts: [Int], width: Int) throws -> Int {
        try pool.read { db in
            var rows = 0
            for start in starts {
                rows += try Row10Record.filter((start...(start + width - 1)).contains(Column("a"))).fetchAll(db).count
            }
            return rows
        }
    }

    func updateAll() throws {
        try pool.write { db in
            for index in fetched.indices {
                fetched[index].b = InputRow.updatedB(a: fetched[index].a)
                try fetched[index].update(db, columns: ["b"])
            }
        }
    }

    func removeEveryOther() throws -> Int {
        try pool.write { db in
            var removed = 0
            for index in stride(from: 0, to: fetched.count, by: 2) {
                if try fetched[index].delete(db) { removed += 1 }
            }
            return removed
        }
    }

    func lookups(_ keys: [Int64]) throws -> Int {
        try pool.read { db in
            var found = 0
            for key in keys where try Row10Record.fetchOne(db, key: key) != nil { found += 1 }
            return found
        }
    }

    func queries(_ values: [Int]) throws -> Int {
        try pool.read { db in
            var rows = 0
            for value in values { rows += try Row10Record.filter(Column("a") == value).fetchAll(db).count }
            return rows
        }
    }

    func sumOfH() throws -> Int64 {
        try pool.read { db in try Int64.fetchOne(db, Row10Record.select(sum(Column("h")))) ?? 0 }
    }

    func close() {
        try? pool.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// The ten columns as a GRDB record.
struct Row10Record: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "Row10"

    var id: Int64?
    var a: Int, b: Int, c: Double, d: Double, e: String, f: String, g: Bool, h: Int64, i: String?, j: Date

    init(_ row: InputRow) {
        (a, b, c, d, e, f, g, h, i, j) = (row.a, row.b, row.c, row.d, row.e, row.f, row.g, row.h, row.i, row.j)
    }

    init(row: GRDB.Row) throws {
        id = row["id"]
        (a, b, c, d, e) = (row["a"], row["b"], row["c"], row["d"], row["e"])
        (f, g, h, i, j) = (row["f"], row["g"], row["h"], row["i"], row["j"])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["a"] = a
        container["b"] = b
        container["c"] = c
        container["d"] = d
        container["e"] = e
        container["f"] = f
        container["g"] = g
        container["h"] = h
        container["i"] = i
        container["j"] = j
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
