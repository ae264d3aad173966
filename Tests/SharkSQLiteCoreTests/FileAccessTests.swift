import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkSQLite
@testable import SharkSQLiteCore

/// How read-only stores open a file: immutable only where nothing can change under them.
@Suite("Read-only file access")
struct FileAccessTests {
    private static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shark-access-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A database with one table, closed, in `mode` (WAL or DELETE).
    private static func database(at path: String, journal: String) throws {
        let connection = try SQLiteConnection(path: path, library: SystemSQLite.library)
        try connection.execute("PRAGMA journal_mode = \(journal)")
        try connection.execute("CREATE TABLE t(x)")
        try connection.execute("INSERT INTO t VALUES (1)")
        connection.close()
    }

    @Test("a WAL database nobody has open reads immutable; one with a live log shares it")
    func walDatabase() throws {
        let path = try Self.directory().appendingPathComponent("wal.db").path
        try Self.database(at: path, journal: "WAL")
        #expect(FileAccess.journalMode(of: path) == .wal)
        #expect(FileAccess.forReading(path) == .immutable)
        let writer = try SQLiteConnection(path: path, library: SystemSQLite.library)
        try writer.execute("INSERT INTO t VALUES (2)")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(FileAccess.forReading(path) == .readOnly)
        let reader = try SQLiteConnection(path: path, library: SystemSQLite.library, access: .forReading(path))
        #expect(try reader.scalar("SELECT count(*) FROM t") == .integer(2))
        reader.close()
        writer.close()
    }

    @Test("a rollback-journal database reads with locks, and no side file appears")
    func rollbackDatabase() throws {
        let directory = try Self.directory()
        let path = directory.appendingPathComponent("rollback.db").path
        try Self.database(at: path, journal: "DELETE")
        #expect(FileAccess.journalMode(of: path) == .rollback)
        #expect(FileAccess.forReading(path) == .readOnly)
        let reader = try SQLiteConnection(path: path, library: SystemSQLite.library, access: .forReading(path))
        #expect(try reader.scalar("SELECT count(*) FROM t") == .integer(1))
        reader.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["rollback.db"])
    }

    @Test("a link is judged by the file it points to, whose side files SQLite uses")
    func symbolicLink() throws {
        let directory = try Self.directory()
        let path = directory.appendingPathComponent("real.db").path
        try Self.database(at: path, journal: "WAL")
        let link = directory.appendingPathComponent("link.db").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let writer = try SQLiteConnection(path: path, library: SystemSQLite.library)
        try writer.execute("INSERT INTO t VALUES (2)")
        #expect(FileAccess.forReading(link) == .readOnly)
        let reader = try SQLiteConnection(path: link, library: SystemSQLite.library, access: .forReading(link))
        #expect(try reader.scalar("SELECT count(*) FROM t") == .integer(2))
        reader.close()
        writer.close()
    }

    @Test("paths with URI characters open as the file they name")
    func awkwardPaths() throws {
        let directory = try Self.directory()
        for name in ["a b.db", "what?.db", "hash#1.db", "100%.db", "semi;colon&amp.db"] {
            let path = directory.appendingPathComponent(name).path
            try Self.database(at: path, journal: "WAL")
            let reader = try SQLiteConnection(path: path, library: SystemSQLite.library, access: .forReading(path))
            #expect(try reader.scalar("SELECT count(*) FROM t") == .integer(1), "\(name)")
            reader.close()
        }
        // Relative paths stay relative to the working directory.
        #expect(FileAccess.readOnly.uri(for: "data/app.db") == "file:data/app.db?mode=ro")
        #expect(FileAccess.immutable.uri(for: "/tmp/x?.db") == "file:///tmp/x%3f.db?mode=ro&immutable=1")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") })
    }
}
