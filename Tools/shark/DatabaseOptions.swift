import ArgumentParser
import Foundation
import SharkORM
import SharkSQLCipher
import SharkSQLite
import SharkSQLiteCore

/// The database a command works on (a file, or a PostgreSQL database named by URL), its key
/// when encrypted, its password when on a server, and tracing.
struct DatabaseOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The SQLite or SQLCipher database file, or a PostgreSQL URL without its password "
                + "(postgresql://user@host:port/database?schema=app).",
            valueName: "database"))
    var path: String

    @OptionGroup var key: DatabaseKeyOptions

    @OptionGroup var password: PostgresPasswordOptions

    @Flag(help: "Print each SQL statement to standard error (arguments and keys are never shown).")
    var trace = false

    /// Whether the database is on a PostgreSQL server rather than in a file.
    var isPostgres: Bool { PostgresLocation.isURL(path) }

    /// Opens the store: `.postgres` for a URL, `.sqlite` for a plain file, `.sqlcipher`
    /// otherwise, with `given` or else the key from its source. Read-only unless `writable`;
    /// never creates a file (a PostgreSQL schema is created by a writable open, as an app's
    /// first store creates it).
    func open(writable: Bool = false, key given: SQLCipherKey? = nil) throws -> Store {
        guard isPostgres else {
            return try DatabaseFile.open(path, key: key, writable: writable, given: given, trace: trace)
        }
        let location = try PostgresLocation(path, password: password.source, readOnly: !writable)
        var configuration = location.configuration
        if trace {
            configuration = configuration.traced { event in Terminal.writeError("trace: \(event)") }
        }
        do {
            return try Store(configuration)
        } catch SharkError.fileNotFound {
            throw CommandFailure(
                "the database \(location.settings.database) has no schema \(location.settings.schema) "
                    + "(name the app's with ?schema=…)", exitCode: CommandFailure.noInput)
        }
    }
}

/// What a database file looks like from its first bytes.
enum DatabaseFile {
    enum Kind {
        /// A plain SQLite database.
        case plain
        /// An encrypted database, or not a database at all (only the key tells).
        case encryptedOrOther
    }

    /// Opens the store at `path`: `.sqlite` for a plain file, `.sqlcipher` otherwise, with
    /// `given` or else the key from `key`'s source. Read-only unless `writable`; never creates
    /// a file.
    static func open(
        _ path: String, key: DatabaseKeyOptions, writable: Bool = false, given: SQLCipherKey? = nil, trace: Bool = false
    ) throws -> Store {
        var configuration: StoreConfiguration
        switch try kind(of: path) {
        case .plain: configuration = .sqlite(path: path, readOnly: !writable)
        case .encryptedOrOther:
            configuration = .sqlcipher(path: path, key: try given ?? key.key(), readOnly: !writable)
        }
        if trace {
            configuration = configuration.traced { event in Terminal.writeError("trace: \(event)") }
        }
        return try Store(configuration)
    }

    /// The kind of the file at `path`; throws for a missing file, anything but a regular
    /// file (a directory, a pipe), and a file too small or of a size no database has.
    static func kind(of path: String) throws -> Kind {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: resolved) else {
            throw CommandFailure("no such file: \(path)", exitCode: CommandFailure.noInput)
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            let what = attributes[.type] as? FileAttributeType == .typeDirectory ? "a directory" : "not a regular file"
            throw CommandFailure("\(path) is \(what), not a database file", exitCode: CommandFailure.noInput)
        }
        guard let handle = FileHandle(forReadingAtPath: resolved) else {
            throw CommandFailure("cannot read \(path): check its permissions", exitCode: CommandFailure.noInput)
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        guard !header.isEmpty else {
            throw CommandFailure("\(path) is empty, not a database", exitCode: CommandFailure.dataError)
        }
        if header.starts(with: Data("SQLite format 3\u{0}".utf8)) { return .plain }
        // Every database, encrypted or not, is whole pages of at least 512 bytes.
        let size = (attributes[.size] as? Int) ?? 0
        guard size >= 512, size % 512 == 0 else {
            throw CommandFailure(
                "\(path) is not a database (neither SQLite's header nor whole encrypted pages)",
                exitCode: CommandFailure.dataError)
        }
        return .encryptedOrOther
    }

    /// The size of the file `path` names (the file a link points to).
    static func size(of path: String) -> Int {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return ((try? FileManager.default.attributesOfItem(atPath: resolved)[.size]) as? Int) ?? 0
    }

    /// The journal mode a plain database's header records ("wal" or "rollback"); nil when
    /// the header is encrypted.
    static func journalMode(of path: String) -> String? {
        switch FileAccess.journalMode(of: URL(fileURLWithPath: path).resolvingSymlinksInPath().path) {
        case .wal?: return "wal"
        case .rollback?: return "rollback"
        case nil: return nil
        }
    }

    /// Whether `a` and `b` name the same file (through links and relative paths).
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        func canonical(_ path: String) -> String {
            URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
        }
        return canonical(a) == canonical(b)
    }
}
