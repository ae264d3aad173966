import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLCipher
import Testing

@testable import SharkDriverConformance

/// The table the `sqlite3` shell makes in ``AdoptionTests``, seen through a model.
@Model(entity: "Person")
final class ShellPerson {
    var name: String = ""
    var age: Int = 0
}

/// The same table with a column the shell's table lacks.
@Model(entity: "Person")
final class ShellPersonWithEmail {
    var name: String = ""
    var age: Int = 0
    var email: String?
}

/// Databases made by other programs — the real `sqlite3` and `sqlcipher` shells — opened with
/// a model that fits them: adopted as they are, never rewritten.
@Suite("Adopting databases other programs made")
struct AdoptionTests {
    static let table = "CREATE TABLE Person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL);"
    static let rows = "INSERT INTO Person(name, age) VALUES ('Ada', 36), ('Grace', 45), ('Alan', 41);"

    /// Runs `shell` (`sqlite3` or `sqlcipher`) on `path` with `script` on its standard input.
    static func runShell(_ shell: String, _ path: String, _ script: String) throws {
        let executable = try #require(
            ["/usr/bin/\(shell)", "/usr/local/bin/\(shell)"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "the \(shell) shell is not installed (scripts/system-libraries.sh installs it)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [path]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(shell) failed on: \(script)")
    }

    static func tableSQL(_ store: Store) throws -> Value? {
        try store.rows("SELECT sql FROM sqlite_master WHERE name = 'Person'").rows.first?.first
    }

    @Test("a table the sqlite3 shell made is adopted as it is")
    func sqliteShell() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        try Self.runShell("sqlite3", file.path, Self.table + Self.rows)
        let store = try Store(.sqlite(path: file.path))
        let before = try Self.tableSQL(store)
        let people = try ShellPerson.query(in: store).orderBy(\.age).fetch()
        #expect(people.map(\.name) == ["Ada", "Alan", "Grace"])
        #expect(people.map(\.id) == [1, 3, 2])
        #expect(try Self.tableSQL(store) == before, "the table was rewritten")
        let linus = ShellPerson()
        linus.name = "Linus"
        linus.age = 54
        try store.commit(linus)
        #expect(linus.id == 4)
        store.close()
        // Reopened, the shell still reads what the model wrote.
        let again = try Store(.sqlite(path: file.path))
        #expect(try ShellPerson.query(in: again).count() == 4)
        again.close()
        try Self.runShell("sqlite3", file.path, "SELECT count(*) FROM Person;")
    }

    @Test("a new property adds its column and keeps the rows")
    func addedColumn() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        try Self.runShell("sqlite3", file.path, Self.table + Self.rows)
        let store = try Store(.sqlite(path: file.path))
        defer { store.close() }
        let people = try ShellPersonWithEmail.query(in: store).orderBy(\.name).fetch()
        #expect(people.map(\.name) == ["Ada", "Alan", "Grace"] && people.allSatisfy { $0.email == nil })
    }

    @Test("a table the sqlcipher shell encrypted with its defaults is adopted")
    func sqlcipherShell() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        try Self.runShell("sqlcipher", file.path, "PRAGMA key = 'shell secret';" + Self.table + Self.rows)
        let store = try Store(.sqlcipher(path: file.path, key: .passphrase("shell secret")))
        defer { store.close() }
        #expect(try ShellPerson.query(in: store).orderBy(\.name).fetch().map(\.name) == ["Ada", "Alan", "Grace"])
        let settings = try SQLCipher.settings(of: store)
        #expect(settings.pageSize == 1024)
        let eve = ShellPerson()
        eve.name = "Eve"
        try store.commit(eve)
        #expect(try ShellPerson.query(in: store).count() == 4)
    }

    @Test("data that does not fit is refused with the column and what its rows hold")
    func misfits() throws {
        for (script, expected) in [
            (
                "CREATE TABLE Person(id INTEGER PRIMARY KEY, name TEXT, age INTEGER);"
                    + "INSERT INTO Person(name, age) VALUES ('Ada', NULL), ('Bob', NULL), ('Cy', 3);",
                "the column age holds NULL in 2 row(s)"
            ),
            (
                "CREATE TABLE Person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age);"
                    + "INSERT INTO Person(name, age) VALUES ('Ada', 'thirty'), ('Bob', 4);",
                "the column age holds 1 text value(s) (such as 'thirty')"
            ),
            (
                "CREATE TABLE Person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, badge TEXT NOT NULL);",
                "the table's column badge is NOT NULL with no default"
            ),
            (
                "CREATE TABLE Person(pid INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL);",
                "the table's primary key is pid"
            ),
        ] {
            let file = TemporaryPath()
            defer { file.cleanUp() }
            try Self.runShell("sqlite3", file.path, script)
            let store = try Store(.sqlite(path: file.path))
            defer { store.close() }
            #expect {
                _ = try ShellPerson.query(in: store).fetch()
            } throws: { error in
                guard case SharkError.schemaMismatch("Person", let reason) = error else { return false }
                return reason.contains(expected)
            }
            // Refused, and nothing changed.
            #expect(try store.rows("SELECT count(*) FROM sqlite_master WHERE name = '_shark_schema'").rows.count == 1)
        }
    }
}

extension AdoptionTests {
    @Test("plain decimal text in an adopted table is rewritten in the sortable form")
    func adoptedPlainText() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        try AdoptionTests.runShell(
            "sqlite3", file.path,
            "CREATE TABLE Price(id INTEGER PRIMARY KEY, label TEXT NOT NULL, amount TEXT NOT NULL, discount TEXT);"
                + "INSERT INTO Price(label, amount) VALUES ('a', '10.5'), ('b', '9'), ('c', '-2.25');")
        let store = try Store(.sqlite(path: file.path))
        defer { store.close() }
        #expect(try Price.query(in: store).orderBy(\.amount).fetch().map(\.label) == ["c", "b", "a"])
        #expect(try Price.query(in: store).sum(\.amount) == Decimal(string: "17.25")!)
    }
}
