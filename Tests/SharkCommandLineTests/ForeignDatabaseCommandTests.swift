import Foundation
import Testing

/// `shark` on databases other programs made (the `sqlite3` and `sqlcipher` shells), in either
/// journal mode: every read-only command lists and reads their tables and views, and leaves
/// the file and its side files (`-wal`, `-shm`, `-journal`) byte for byte as they were.
@Suite("shark on someone else's database")
struct ForeignDatabaseCommandTests {
    struct Origin: Sendable, CustomTestStringConvertible {
        var shell: String
        var journal: String

        var testDescription: String { "\(shell), \(journal) journal" }

        static let all = ["sqlite3", "sqlcipher"].flatMap { shell in
            ["delete", "wal"].map { Origin(shell: shell, journal: $0) }
        }

        var environment: [String: String] { shell == "sqlcipher" ? ["SHARK_KEY": "shell secret"] : [:] }
    }

    static let script = """
        CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INT);
        INSERT INTO person(name, age) VALUES ('Ada', 36), ('Alan', 41), ('Grace', 45);
        CREATE INDEX person_age ON person(age);
        CREATE TABLE log(message TEXT);
        INSERT INTO log VALUES ('started');
        CREATE TABLE tag(owner TEXT, label TEXT, PRIMARY KEY (owner, label)) WITHOUT ROWID;
        INSERT INTO tag VALUES ('Ada', 'math');
        CREATE VIEW seniors AS SELECT name, age FROM person WHERE age > 40;
        """

    static func makeDatabase(_ origin: Origin, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("\(origin.shell)-made.db").path
        let keying = origin.shell == "sqlcipher" ? "PRAGMA key = 'shell secret';" : ""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(origin.shell)")
        process.arguments = [path]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data((keying + "PRAGMA journal_mode = \(origin.journal);" + script).utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return path
    }

    /// The file's bytes, and every file beside it with theirs.
    static func state(of path: String) throws -> [String: Data] {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    @Test(
        "info lists every table and view, query reads them, and no read-only command changes a byte",
        arguments: Origin.all)
    func readOnlyCommands(origin: Origin) throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try Self.makeDatabase(origin, in: directory)
        let before = try Self.state(of: path)
        let environment = origin.environment

        let info = try SharkProcess.run(["info", path], environment: environment)
        #expect(info.status == 0, "\(info.error)")
        for expected in [
            "tables      3", "person  3 rows, key id", "index person_age on age", "log  1 row, no declared key (rowid)",
            "tag  1 row, key owner, label, WITHOUT ROWID", "views       1", "seniors  2 rows",
        ] {
            #expect(info.output.contains(expected), "\(expected) in \(info.output)")
        }
        let json = try SharkProcess.run(["info", path, "--json", "--check"], environment: environment)
        #expect(json.status == 0, "\(json.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: json.outputData) as? [String: Any])
        let tables = try #require(report["tables"] as? [[String: Any]])
        #expect(tables.compactMap { $0["name"] as? String }.sorted() == ["log", "person", "seniors", "tag"])

        let people = try SharkProcess.run(
            ["query", path, "person", "--where", "age > ?", "40", "--format", "csv"], environment: environment)
        #expect(people.status == 0, "\(people.error)")
        #expect(people.output == "id,name,age\r\n2,Alan,41\r\n3,Grace,45\r\n")
        for (table, expected) in [("log", "started"), ("tag", "math"), ("seniors", "Grace")] {
            let result = try SharkProcess.run(["query", path, table, "--json"], environment: environment)
            #expect(result.status == 0, "\(table): \(result.error)")
            #expect(result.output.contains(expected), "\(table): \(result.output)")
        }
        // Not synced: export says so, and still writes nothing.
        let export = try SharkProcess.run(
            ["export", path, "-o", directory.appendingPathComponent("out.sharklog").path], environment: environment)
        #expect(export.status != 0)
        // A copy, encrypted or decrypted, reads the file and leaves it as it was.
        let copy = directory.appendingPathComponent("copy.db").path
        let copied =
            origin.shell == "sqlcipher"
            ? try SharkProcess.run(["decrypt", path, "-o", copy], environment: environment)
            : try SharkProcess.run(["encrypt", path, "-o", copy], environment: ["SHARK_KEY": "copy secret"])
        #expect(copied.status == 0, "\(copied.error)")
        let copyEnvironment = origin.shell == "sqlcipher" ? [:] : ["SHARK_KEY": "copy secret"]
        let fromCopy = try SharkProcess.run(
            ["query", copy, "seniors", "--format", "csv"], environment: copyEnvironment)
        #expect(fromCopy.output == "name,age\r\nAlan,41\r\nGrace,45\r\n", "\(fromCopy.error)")
        try FileManager.default.removeItem(atPath: copy)
        #expect(try Self.state(of: path) == before)
    }
}
