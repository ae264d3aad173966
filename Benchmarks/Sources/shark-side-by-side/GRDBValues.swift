import Foundation
import GRDB
import SharkORM
import SharkSQLite

/// A table GRDB writes with its own value conversions (dates as UTC text with milliseconds,
/// UUIDs as 16 bytes, Bools as integers), read through a SharkORM model.
@Model(entity: "event")
final class GRDBEvent {
    var title: String = ""
    var count: Int = 0
    var when: Date = Date(timeIntervalSinceReferenceDate: 0)
    var token: UUID = UUID()
    var score: Double = 0
    var flag: Bool = false
    var payload: Data = Data()
}

/// Writes rows with GRDB before and after SharkORM adopts its table, and checks that every
/// value reads back as GRDB wrote it; a value SharkORM cannot read as its property's type must
/// be a typed error, never another value.
@MainActor func checkValuesGRDBWrote(in folder: URL) throws {
    let path = folder.appendingPathComponent("grdb-values.sqlite").path
    let queue = try DatabaseQueue(path: path)
    let when = Date(timeIntervalSince1970: 1_719_761_400.25)  // 2024-06-30 15:30:00.250 UTC
    let token = UUID()
    func insert(_ id: Int, _ title: String) throws {
        try queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO event (id, title, count, \"when\", token, score, flag, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [id, title, 42, when, token, 0.1, true, Data([1, 2, 3])])
        }
    }
    try queue.write { db in
        try db.execute(
            sql: """
                CREATE TABLE event (id INTEGER PRIMARY KEY, title TEXT NOT NULL, count INTEGER NOT NULL, \
                "when" DATETIME NOT NULL, token BLOB NOT NULL, score DOUBLE NOT NULL, flag BOOLEAN NOT NULL, \
                payload BLOB NOT NULL)
                """)
    }
    try insert(1, "before adoption")
    let store = try Store(.sqlite(path: path))
    defer { store.close() }
    check(try GRDBEvent.query(in: store).count() == 1, "SharkORM adopts a table GRDB made")
    try insert(2, "after adoption")
    for event in try GRDBEvent.query(in: store).orderBy(\.id).fetch() {
        let same =
            event.count == 42 && event.when == when && event.token == token && event.score == 0.1 && event.flag
            && event.payload == Data([1, 2, 3])
        check(same, "GRDB's \(event.title) row reads back as GRDB wrote it (dates as text, UUIDs as bytes)")
    }
    try insert(3, "then spoiled")
    try queue.write { db in try db.execute(sql: "UPDATE event SET count = 'many' WHERE id = 3") }
    do {
        _ = try GRDBEvent.query(in: store).fetch()
        check(false, "text GRDB wrote in an integer column is a typed error")
    } catch SharkError.decoding(let reason) {
        check(reason.contains("event.count"), "text GRDB wrote in an integer column is a typed error: \(reason)")
    }
}
