// shark-side-by-side: a plain SQLite store, an encrypted SQLCipher store and a GRDB database
// in one process that links the system libsqlite3 twice over (SharkSQLite and GRDB). This is
// the setting in which SQLCipher loaded with a plain dlopen crashes; here every store must
// write, read back, and leave plaintext only where it should. Exits non-zero on any failure.
import Foundation
import GRDB
import SharkORM
import SharkSQLCipher
import SharkSQLite

@Model
final class Note {
    var text: String = ""
    var number: Int = 0
}

let marker = "side-by-side-plaintext-marker"
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shark-side-by-side-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

var failures: [String] = []
@MainActor func check(_ condition: Bool, _ message: String) {
    print(condition ? "ok    \(message)" : "FAIL  \(message)")
    if !condition { failures.append(message) }
}

func fileContains(_ path: String, _ text: String) -> Bool {
    var data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
    if let wal = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal")) { data.append(wal) }
    return data.range(of: Data(text.utf8)) != nil
}

let plainPath = folder.appendingPathComponent("plain.sqlite").path
let cipherPath = folder.appendingPathComponent("vault.sqlcipher").path
let grdbPath = folder.appendingPathComponent("grdb.sqlite").path

// GRDB first, so the system SQLite is loaded and in use before SQLCipher arrives.
let grdb = try DatabaseQueue(path: grdbPath)
try grdb.write { db in
    try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: [marker])
}

let sqlite = try Store(.sqlite(path: plainPath))
let cipher = try Store(.sqlcipher(path: cipherPath, key: .passphrase("side by side")))
for (index, store) in [sqlite, cipher].enumerated() {
    let note = Note()
    note.text = marker
    note.number = index
    try store.commit(note)
}
try grdb.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: ["second"]) }

check(try Note.query(in: sqlite).where(\.text == marker).count() == 1, "SQLite store reads back its row")
check(try Note.query(in: cipher).where(\.text == marker).count() == 1, "SQLCipher store reads back its row")
check(try grdb.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM note") } == 2, "GRDB reads back its rows")
let settings = try SQLCipher.settings(of: cipher)
check(settings.pageSize == 4096, "SQLCipher \(settings.cipherVersion) on SQLite \(settings.sqliteVersion), 4 KiB pages")
check(
    try grdb.read { try String.fetchOne($0, sql: "SELECT sqlite_version()") } == sqliteVersion,
    "GRDB and SharkSQLite share the system SQLite \(sqliteVersion)")

sqlite.close()
cipher.close()
check(fileContains(plainPath, marker), "the SQLite file holds the plaintext")
check(fileContains(grdbPath, marker), "the GRDB file holds the plaintext")
check(!fileContains(cipherPath, marker), "the SQLCipher file holds no plaintext")

try checkValuesGRDBWrote(in: folder)

if failures.isEmpty {
    print("side by side: all checks passed")
} else {
    print("side by side: \(failures.count) check(s) failed")
    exit(1)
}
