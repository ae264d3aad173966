import ArgumentParser
import Foundation
import SharkORM
import SharkSQLCipher
import SharkSQLite

/// The database a command works on, its key when encrypted, and tracing.
struct DatabaseOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The SQLite or SQLCipher database file.", valueName: "database"))
    var path: String

    @OptionGroup var key: DatabaseKeyOptions

    @Flag(help: "Print each SQL statement to standard error (arguments and keys are never shown).")
    var trace = false

    /// Opens the store: `.sqlite` for a plain file, `.sqlcipher` (with the key) otherwise.
    /// Read-only unless `writable`; never creates a file.
    func open(writable: Bool = false) throws -> Store {
        let kind = try DatabaseFile.kind(of: path)
        var configuration: StoreConfiguration
        switch kind {
        case .plain: configuration = .sqlite(path: path, readOnly: !writable)
        case .encryptedOrOther: configuration = .sqlcipher(path: path, key: try key.key(), readOnly: !writable)
        }
        if trace {
            configuration = configuration.traced { event in Terminal.writeError("trace: \(event)") }
        }
        return try Store(configuration)
    }
}

/// What a database file looks like from its first bytes.
enum DatabaseFile {
    enum Kind {
        /// A plain SQLite database.
        case plain
        /// Anything else: an encrypted database, or not a database at all (only the key tells).
        case encryptedOrOther
    }

    /// The kind of the file at `path`; throws for a missing file, a directory, an empty file.
    static func kind(of path: String) throws -> Kind {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure("no such file: \(path)", exitCode: CommandFailure.noInput)
        }
        guard !isDirectory.boolValue else {
            throw CommandFailure("\(path) is a directory, not a database file", exitCode: CommandFailure.noInput)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure("cannot read \(path)", exitCode: CommandFailure.noInput)
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        guard !header.isEmpty else {
            throw CommandFailure("\(path) is empty, not a database", exitCode: CommandFailure.dataError)
        }
        return header.starts(with: Data("SQLite format 3\u{0}".utf8)) ? .plain : .encryptedOrOther
    }

    /// The journal mode a plain database's header records ("wal" or "delete"), nil when the
    /// header is encrypted.
    static func journalMode(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20,
            header.starts(with: Data("SQLite format 3\u{0}".utf8))
        else { return nil }
        return header[header.startIndex + 18] == 2 ? "wal" : "delete"
    }
}
