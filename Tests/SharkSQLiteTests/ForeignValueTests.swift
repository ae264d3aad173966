import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkDriverConformance

/// A table the sqlite3 shell made, seen through a model with a value of every kind.
@Model(entity: "Event")
final class ShellEvent {
    var title: String = ""
    var count: Int = 0
    var when: Date = Date(timeIntervalSinceReferenceDate: 0)
    var token: UUID?
    var score: Double = 0
    var payload: Data = Data()
}

/// Values another program writes into a table SharkORM adopted, after it adopted it: read as
/// what they are by a documented conversion (date text, UUID text), or refused with a typed
/// error naming the table, the column and what it holds — never read as something else.
@Suite("Values other programs wrote")
struct ForeignValueTests {
    static let table = """
        CREATE TABLE Event(id INTEGER PRIMARY KEY, title TEXT NOT NULL, count INTEGER, "when" REAL NOT NULL, \
        token BLOB, score REAL NOT NULL, payload BLOB NOT NULL);
        INSERT INTO Event VALUES (1, 'adopted', 1, 0, NULL, 0.5, x'00');
        """

    /// A store on a file the shell made, the model adopted, then `script` run by the shell.
    static func store(after script: String, _ file: TemporaryPath) throws -> Store {
        try AdoptionTests.runShell("sqlite3", file.path, table)
        do {
            let store = try Store(.sqlite(path: file.path))
            #expect(try ShellEvent.query(in: store).count() == 1)
            // The first write adopts the table (reads alone leave the file as it was).
            try store.transaction {}
            store.close()
        }
        try AdoptionTests.runShell("sqlite3", file.path, script)
        return try Store(.sqlite(path: file.path))
    }

    @Test("date text is the date it spells; UUID text is that UUID")
    func documentedConversions() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let uuid = UUID()
        let store = try Self.store(
            after: """
                INSERT INTO Event VALUES (2, 'sqlite date', 2, '2024-06-30 15:30:00', '\(uuid.uuidString)', 1, x'01');
                INSERT INTO Event VALUES (3, 'iso date', 3, '2024-06-30T17:30:00.250+02:00', NULL, 2, x'02');
                INSERT INTO Event VALUES (4, 'shell now', 4, datetime(0, 'unixepoch'), NULL, 3, x'03');
                """, file)
        defer { store.close() }
        let events = try ShellEvent.query(in: store).orderBy(\.id).fetch()
        let utc = Date(timeIntervalSince1970: 1_719_761_400)  // 2024-06-30 15:30:00 UTC
        #expect(events[1].when == utc)
        #expect(events[1].token == uuid)
        #expect(events[2].when == utc.addingTimeInterval(0.25))
        #expect(events[3].when == Date(timeIntervalSince1970: 0))
    }

    @Test(
        "a value of another kind than its property's is a typed error naming the table and column",
        arguments: [
            ("count", "'many'", "Event.count", "text"),
            ("count", "2.5", "Event.count", "a real"),
            ("when", "'yesterday'", "Event.when", "text"),
            ("title", "x'00ff'", "Event.title", "a blob"),
            ("token", "x'0102'", "Event.token", "a blob of 2 bytes"),
            ("score", "'high'", "Event.score", "text"),
            ("payload", "'text'", "Event.payload", "text"),
            ("count", "NULL", "Event.count", "NULL"),
        ])
    func refused(column: String, value: String, named: String, found: String) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let store = try Self.store(after: "UPDATE Event SET \"\(column)\" = \(value);", file)
        defer { store.close() }
        #expect {
            try ShellEvent.query(in: store).fetch()
        } throws: { error in
            guard case SharkError.decoding(let reason) = error else { return false }
            return reason.contains(named) && reason.contains(found)
        }
        // The row is still there for the row calls, as it is.
        #expect(try store.fetchRows(of: "Event").count == 1)
    }
}
