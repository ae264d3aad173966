import CSQLiteRaw
import Foundation

/// The baseline: the same work written by hand against the SQLite C API.
enum RawSQLite {
    static func open(_ path: String) -> OpaquePointer {
        var db: OpaquePointer?
        guard
            sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK, let db
        else { fatalError("cannot open \(path)") }
        exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        return db
    }

    static func exec(_ db: OpaquePointer, _ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            fatalError(String(cString: sqlite3_errmsg(db)))
        }
    }

    static func createTable(_ db: OpaquePointer) {
        exec(
            db,
            """
            CREATE TABLE Row10 (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL, c, d,
            e TEXT NOT NULL, f TEXT NOT NULL, g INTEGER NOT NULL, h INTEGER NOT NULL, i TEXT, j);
            CREATE INDEX Row10_a ON Row10 (a)
            """)
    }

    static func insert(_ rows: [InputRow], into db: OpaquePointer) {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
            db, "INSERT INTO Row10 (a,b,c,d,e,f,g,h,i,j) VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &statement, nil)
        exec(db, "BEGIN IMMEDIATE")
        let transient = shark_bench_transient()
        for row in rows {
            sqlite3_bind_int64(statement, 1, Int64(row.a))
            sqlite3_bind_int64(statement, 2, Int64(row.b))
            sqlite3_bind_double(statement, 3, row.c)
            sqlite3_bind_double(statement, 4, row.d)
            sqlite3_bind_text(statement, 5, row.e, -1, transient)
            sqlite3_bind_text(statement, 6, row.f, -1, transient)
            sqlite3_bind_int64(statement, 7, row.g ? 1 : 0)
            sqlite3_bind_int64(statement, 8, row.h)
            if let i = row.i {
                sqlite3_bind_text(statement, 9, i, -1, transient)
            } else {
                sqlite3_bind_null(statement, 9)
            }
            sqlite3_bind_double(statement, 10, row.j.timeIntervalSinceReferenceDate)
            guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(statement)
        }
        exec(db, "COMMIT")
        sqlite3_finalize(statement)
    }

    static func fetchAll(from db: OpaquePointer) -> [PlainRow10] {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT id,a,b,c,d,e,f,g,h,i,j FROM Row10 ORDER BY id", -1, &statement, nil)
        var rows: [PlainRow10] = []
        while sqlite3_step(statement) == SQLITE_ROW { rows.append(row(statement)) }
        sqlite3_finalize(statement)
        return rows
    }

    /// The current row as an object.
    private static func row(_ statement: OpaquePointer?) -> PlainRow10 {
        let row = PlainRow10()
        row.id = sqlite3_column_int64(statement, 0)
        row.a = Int(sqlite3_column_int64(statement, 1))
        row.b = Int(sqlite3_column_int64(statement, 2))
        row.c = sqlite3_column_double(statement, 3)
        row.d = sqlite3_column_double(statement, 4)
        row.e = text(statement, 5)
        row.f = text(statement, 6)
        row.g = sqlite3_column_int64(statement, 7) != 0
        row.h = sqlite3_column_int64(statement, 8)
        row.i = sqlite3_column_type(statement, 9) == SQLITE_NULL ? nil : text(statement, 9)
        row.j = Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 10))
        return row
    }

    static func lookups(_ keys: [Int64], in db: OpaquePointer) -> Int {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT id,a,b,c,d,e,f,g,h,i,j FROM Row10 WHERE id = ?", -1, &statement, nil)
        var found = 0
        for key in keys {
            sqlite3_bind_int64(statement, 1, key)
            while sqlite3_step(statement) == SQLITE_ROW {
                _ = row(statement)
                found += 1
            }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        return found
    }

    static func ranges(_ starts: [Int], width: Int, in db: OpaquePointer) -> Int {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
            db, "SELECT id,a,b,c,d,e,f,g,h,i,j FROM Row10 WHERE a BETWEEN ? AND ? ORDER BY id", -1, &statement, nil)
        var rows = 0
        for start in starts {
            sqlite3_bind_int64(statement, 1, Int64(start))
            sqlite3_bind_int64(statement, 2, Int64(start + width - 1))
            var batch: [PlainRow10] = []
            while sqlite3_step(statement) == SQLITE_ROW { batch.append(row(statement)) }
            rows += batch.count
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        return rows
    }

    private static func text(_ statement: OpaquePointer?, _ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, index) else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index))),
            as: UTF8.self)
    }
}
