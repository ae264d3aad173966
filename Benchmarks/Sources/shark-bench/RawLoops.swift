import CSQLite
import Foundation

/// The baseline: the same work written by hand against the SQLite C API, called through a
/// `shark_sqlite3_api` function table so that one implementation serves the system SQLite and
/// SQLCipher (whose symbols cannot be linked beside SQLite's).
final class RawDatabase: Backend {
    let api: UnsafeMutablePointer<shark_sqlite3_api>
    let db: OpaquePointer
    let path: String
    private var fetched: [PlainRow10] = []

    /// The function table of `library`, loaded (isolated when `isolated`) once.
    static func table(_ library: String, isolated: Bool) -> UnsafeMutablePointer<shark_sqlite3_api> {
        let api = UnsafeMutablePointer<shark_sqlite3_api>.allocate(capacity: 1)
        var message = [CChar](repeating: 0, count: 512)
        guard shark_sqlite3_api_load(library, isolated ? 1 : 0, api, &message, message.count) == 0 else {
            fatalError("cannot load \(library)")
        }
        return api
    }

    /// Opens `path`; with a key, keys it (SQLCipher) with `pageSize`-byte cipher pages. The
    /// settings are the ones the SharkORM driver over the same library uses, so the two
    /// columns differ only by what SharkORM adds.
    init(
        api: UnsafeMutablePointer<shark_sqlite3_api>, path: String, key: String? = nil, pageSize: Int = 4096,
        pragmas: [String] = []
    ) {
        self.api = api
        self.path = path
        var handle: OpaquePointer?
        let flags = SHARK_SQLITE_OPEN_READWRITE | SHARK_SQLITE_OPEN_CREATE | SHARK_SQLITE_OPEN_NOMUTEX
        guard api.pointee.open_v2(path, &handle, flags, nil) == SHARK_SQLITE_OK, let handle else {
            fatalError("cannot open \(path)")
        }
        db = handle
        if let key {
            _ = api.pointee.key(db, key, Int32(key.utf8.count))
            exec("PRAGMA cipher_page_size = \(pageSize)")
        }
        exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        for pragma in pragmas { exec(pragma) }
        createTable()
    }

    func close() {
        _ = api.pointee.close_v2(db)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func exec(_ sql: String) {
        guard api.pointee.exec(db, sql, nil, nil, nil) == SHARK_SQLITE_OK else {
            fatalError(String(cString: api.pointee.errmsg(db)!))
        }
    }

    func createTable() {
        exec(
            """
            CREATE TABLE Row10 (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL, c, d,
            e TEXT NOT NULL, f TEXT NOT NULL, g INTEGER NOT NULL, h INTEGER NOT NULL, i TEXT, j);
            CREATE INDEX Row10_a ON Row10 (a)
            """)
    }

    func prepare(_ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        guard api.pointee.prepare_v2(db, sql, -1, &statement, nil) == SHARK_SQLITE_OK, let statement else {
            fatalError(String(cString: api.pointee.errmsg(db)!))
        }
        return statement
    }

    func insert(_ rows: [InputRow]) {
        let statement = prepare("INSERT INTO Row10 (a,b,c,d,e,f,g,h,i,j) VALUES (?,?,?,?,?,?,?,?,?,?)")
        exec("BEGIN IMMEDIATE")
        for row in rows { insertRow(row, with: statement) }
        exec("COMMIT")
        _ = api.pointee.finalize(statement)
    }

    /// Binds `row` to the INSERT `statement` and runs it.
    func insertRow(_ row: InputRow, with statement: OpaquePointer) {
        _ = shark_bind_int64(api, statement, 1, Int64(row.a))
        _ = shark_bind_int64(api, statement, 2, Int64(row.b))
        _ = shark_bind_double(api, statement, 3, row.c)
        _ = shark_bind_double(api, statement, 4, row.d)
        bind(row.e, 5, statement)
        bind(row.f, 6, statement)
        _ = shark_bind_int64(api, statement, 7, row.g ? 1 : 0)
        _ = shark_bind_int64(api, statement, 8, row.h)
        if let i = row.i { bind(i, 9, statement) } else { _ = shark_bind_null(api, statement, 9) }
        _ = shark_bind_double(api, statement, 10, row.j.timeIntervalSinceReferenceDate)
        guard shark_step(api, statement) == SHARK_SQLITE_DONE else { fatalError("insert failed") }
        _ = shark_reset(api, statement)
    }

    func bind(_ text: String, _ index: Int32, _ statement: OpaquePointer) {
        _ = text.withCString { shark_bind_text(api, statement, index, $0, Int32(text.utf8.count)) }
    }

    func fetchAll() -> Int {
        let statement = prepare("SELECT id,a,b,c,d,e,f,g,h,i,j FROM Row10")
        var rows: [PlainRow10] = []
        while shark_step(api, statement) == SHARK_SQLITE_ROW { rows.append(row(statement)) }
        _ = api.pointee.finalize(statement)
        fetched = rows
        return rows.count
    }

    func updateAll() {
        let statement = prepare("UPDATE Row10 SET b = ? WHERE id = ?")
        exec("BEGIN IMMEDIATE")
        for row in fetched {
            row.b = InputRow.updatedB(a: row.a)
            _ = shark_bind_int64(api, statement, 1, Int64(row.b))
            _ = shark_bind_int64(api, statement, 2, row.id)
            guard shark_step(api, statement) == SHARK_SQLITE_DONE else { fatalError("update failed") }
            _ = shark_reset(api, statement)
        }
        exec("COMMIT")
        _ = api.pointee.finalize(statement)
    }

    func removeEveryOther() -> Int {
        let statement = prepare("DELETE FROM Row10 WHERE id = ?")
        exec("BEGIN IMMEDIATE")
        var removed = 0
        for index in stride(from: 0, to: fetched.count, by: 2) {
            _ = shark_bind_int64(api, statement, 1, fetched[index].id)
            guard shark_step(api, statement) == SHARK_SQLITE_DONE else { fatalError("delete failed") }
            _ = shark_reset(api, statement)
            removed += 1
        }
        exec("COMMIT")
        _ = api.pointee.finalize(statement)
        return removed
    }

    func lookups(_ keys: [Int64]) -> Int {
        let statement = prepare("SELECT id,a,b,c,d,e,f,g,h,i,j FROM Row10 WHERE id = ?")
        defer { _ = api.pointee.finalize(statement) }
        return lookups(keys, with: statement)
    }

    /// Reads the row of each key into an object through the SELECT by key `statement`;
    /// returns how many were found.
    func lookups(_ keys: [Int64], with statement: OpaquePointer) -> Int {
        var found = 0
        for key in keys {
            _ = shark_bind_int64(api, statement, 1, key)
            while shark_step(api, statement) == SHARK_SQLITE_ROW {
                _ = row(statement)
                found += 1
            }
            _ = shark_reset(api, statement)
        }
        return found
    }

    func ranges(_ starts: [Int], width: Int) -> Int {
        rowsOfEach("SELECT id,a,b,c,d,e,f,g,h,i,j FROM Row10 WHERE a BETWEEN ? AND ?", starts.count) { statement, n in
            _ = shark_bind_int64(api, statement, 1, Int64(starts[n]))
            _ = shark_bind_int64(api, statement, 2, Int64(starts[n] + width - 1))
        }
    }

    func queries(_ values: [Int]) -> Int {
        rowsOfEach("SELECT id,a,b,c,d,e,f,g,h,i,j FROM Row10 WHERE a = ?", values.count) { statement, n in
            _ = shark_bind_int64(api, statement, 1, Int64(values[n]))
        }
    }

    /// Runs `sql` `count` times, bound by `bind` for each run, reading each run's rows into
    /// objects; returns how many rows all runs read.
    private func rowsOfEach(_ sql: String, _ count: Int, bind: (OpaquePointer, Int) -> Void) -> Int {
        let statement = prepare(sql)
        var rows = 0
        for n in 0..<count {
            bind(statement, n)
            var batch: [PlainRow10] = []
            while shark_step(api, statement) == SHARK_SQLITE_ROW { batch.append(row(statement)) }
            rows += batch.count
            _ = shark_reset(api, statement)
        }
        _ = api.pointee.finalize(statement)
        return rows
    }

    func sumOfH() -> Int64 {
        let statement = prepare("SELECT sum(h) FROM Row10")
        defer { _ = api.pointee.finalize(statement) }
        guard shark_step(api, statement) == SHARK_SQLITE_ROW else { return 0 }
        return shark_column_int64(api, statement, 0)
    }

    /// The current row as an object.
    private func row(_ statement: OpaquePointer) -> PlainRow10 {
        let row = PlainRow10()
        row.id = shark_column_int64(api, statement, 0)
        row.a = Int(shark_column_int64(api, statement, 1))
        row.b = Int(shark_column_int64(api, statement, 2))
        row.c = shark_column_double(api, statement, 3)
        row.d = shark_column_double(api, statement, 4)
        row.e = text(statement, 5)
        row.f = text(statement, 6)
        row.g = shark_column_int64(api, statement, 7) != 0
        row.h = shark_column_int64(api, statement, 8)
        row.i = shark_column_type(api, statement, 9) == SHARK_SQLITE_NULL ? nil : text(statement, 9)
        row.j = Date(timeIntervalSinceReferenceDate: shark_column_double(api, statement, 10))
        return row
    }

    func text(_ statement: OpaquePointer, _ index: Int32) -> String {
        guard let bytes = shark_column_text(api, statement, index) else { return "" }
        let count = Int(shark_column_bytes(api, statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
