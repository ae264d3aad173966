import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLCipher
import SharkSQLite
import Testing

@testable import SharkDriverConformance

/// A database file and the side files SQLite keeps beside it (`-wal`, `-shm`, `-journal`),
/// byte for byte: what "left as it was" is compared by.
struct FileSnapshot: Equatable, CustomStringConvertible {
    var bytes: Data
    var sideFiles: [String: Data]

    init(of path: String) throws {
        bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        sideFiles = [:]
        for suffix in ["-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            sideFiles[suffix] = try Data(contentsOf: URL(fileURLWithPath: path + suffix))
        }
    }

    var description: String {
        "\(bytes.count) bytes" + sideFiles.keys.sorted().map { " + \($0) (\(sideFiles[$0]!.count) bytes)" }.joined()
    }
}

/// Databases other programs made, in either journal mode, plain or encrypted: opened by a
/// store and read, they stay byte for byte as they were (side files included) until the app
/// writes; the first write adopts their tables and switches the file to WAL; a write that
/// fails leaves them as they were.
@Suite("Someone else's database")
struct ForeignDatabaseTests {
    /// A file made by a shell: plain (`sqlite3`) or encrypted (`sqlcipher`), in rollback-journal
    /// or WAL mode.
    struct Origin: Sendable, CustomTestStringConvertible {
        var shell: String
        var journal: String

        var testDescription: String { "\(shell), \(journal) journal" }

        static let all = ["sqlite3", "sqlcipher"].flatMap { shell in
            ["delete", "wal"].map { Origin(shell: shell, journal: $0) }
        }

        static let key = "shell secret"

        func make(_ file: TemporaryPath, _ script: String = AdoptionTests.table + AdoptionTests.rows) throws {
            let keying = shell == "sqlcipher" ? "PRAGMA key = '\(Self.key)';" : ""
            try AdoptionTests.runShell(shell, file.path, keying + "PRAGMA journal_mode = \(journal);" + script)
        }

        func open(_ file: TemporaryPath, readOnly: Bool) throws -> Store {
            shell == "sqlcipher"
                ? try Store(.sqlcipher(path: file.path, key: .passphrase(Self.key), readOnly: readOnly))
                : try Store(.sqlite(path: file.path, readOnly: readOnly))
        }
    }

    /// Everything an app that only reads does: models, counts, aggregates, rows by name.
    static func readEverything(_ store: Store) throws {
        #expect(try ShellPerson.query(in: store).orderBy(\.name).fetch().map(\.name) == ["Ada", "Alan", "Grace"])
        #expect(try ShellPerson.query(in: store).where(\.age > 40).count() == 2)
        #expect(try ShellPerson.query(in: store).sum(\.age) == 122)
        #expect(try store.find(ShellPerson.self, id: 2)?.name == "Grace")
        #expect(try store.fetchRows(of: "Person").map { $0["name"] } == [.text("Ada"), .text("Grace"), .text("Alan")])
        #expect(try store.readableSchema(of: "Person").columns.map(\.name) == ["id", "name", "age"])
    }

    @Test(
        "a read-only store reads another program's table through a model and by rows, writing nothing",
        arguments: Origin.all)
    func readOnlyStore(origin: Origin) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        try origin.make(file)
        let before = try FileSnapshot(of: file.path)
        let store = try origin.open(file, readOnly: true)
        try Self.readEverything(store)
        #expect(try store.recordedSchemas().isEmpty)
        store.close()
        #expect(try FileSnapshot(of: file.path) == before)
    }

    @Test(
        "a writable store changes nothing until the app writes; the first write adopts the table and goes to WAL",
        arguments: Origin.all)
    func writableStore(origin: Origin) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        try origin.make(file)
        let before = try FileSnapshot(of: file.path)
        do {
            let store = try origin.open(file, readOnly: false)
            defer { store.close() }
            try Self.readEverything(store)
            #expect(try store.recordedSchemas().isEmpty)
        }
        #expect(try FileSnapshot(of: file.path) == before)

        let store = try origin.open(file, readOnly: false)
        defer { store.close() }
        _ = try ShellPerson.query(in: store).count()
        let linus = ShellPerson()
        linus.name = "Linus"
        linus.age = 54
        try store.commit(linus)
        #expect(linus.id == 4)
        #expect(try store.recordedSchemas().map(\.name) == ["Person"])
        #expect(try store.rows("PRAGMA journal_mode").rows.first?.first == .text("wal"))
    }

    @Test("an adoption that fails, or a first write that rolls back, leaves the file as it was", arguments: Origin.all)
    func failedWrites(origin: Origin) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        // One age the model cannot read: adopting the table is refused.
        try origin.make(
            file,
            AdoptionTests.table.replacingOccurrences(of: "age INTEGER NOT NULL", with: "age NOT NULL")
                + "INSERT INTO Person(name, age) VALUES ('Ada', 36), ('Bob', 'thirty');")
        let before = try FileSnapshot(of: file.path)
        do {
            let store = try origin.open(file, readOnly: false)
            defer { store.close() }
            #expect(throws: SharkError.self) { try ShellPerson.query(in: store).count() }
            #expect(throws: SharkError.self) { try store.commit(ShellPerson()) }
            #expect(try store.recordedSchemas().isEmpty)
        }
        #expect(try FileSnapshot(of: file.path) == before)

        // A table that fits, and a first write transaction that rolls back.
        let fitting = TemporaryPath()
        defer { fitting.cleanUp() }
        try origin.make(fitting)
        let untouched = try FileSnapshot(of: fitting.path)
        do {
            let store = try origin.open(fitting, readOnly: false)
            defer { store.close() }
            try Self.readEverything(store)
            struct Abandoned: Error {}
            #expect(throws: Abandoned.self) {
                try store.transaction {
                    try store.commit(ShellPerson())
                    throw Abandoned()
                }
            }
            #expect(try ShellPerson.query(in: store).count() == 3)
        }
        #expect(try FileSnapshot(of: fitting.path) == untouched)
    }

    @Test("row calls and readableSchema read tables without a declared key, WITHOUT ROWID tables and views")
    func keylessTablesAndViews() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        try AdoptionTests.runShell(
            "sqlite3", file.path,
            """
            CREATE TABLE log(message TEXT);
            INSERT INTO log VALUES ('b'), ('a');
            CREATE TABLE pair(left TEXT, right TEXT, weight REAL, PRIMARY KEY (left, right)) WITHOUT ROWID;
            INSERT INTO pair VALUES ('y', 'z', 1.5), ('x', 'z', 2);
            CREATE VIEW heavy AS SELECT left, weight FROM pair WHERE weight > 1.6;
            """)
        let before = try FileSnapshot(of: file.path)
        let store = try Store(.sqlite(path: file.path, readOnly: true))
        #expect(try store.readableSchema(of: "log").key.name == "rowid")
        #expect(
            try store.fetchRows(of: "log").map { $0.values } == [
                [.integer(1), .text("b")], [.integer(2), .text("a")],
            ])
        #expect(try store.fetchRows(of: "pair").map { $0["left"] } == [.text("x"), .text("y")])
        #expect(try store.fetchRows(of: "heavy").map { $0.values } == [[.text("x"), .real(2)]])
        #expect(try store.unrecordedSchema(of: "nothing") == nil)
        #expect(throws: SharkError.self) { try store.fetchRows(of: "nothing") }
        store.close()
        #expect(try FileSnapshot(of: file.path) == before)
    }
}
