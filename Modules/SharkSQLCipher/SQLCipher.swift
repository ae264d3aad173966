import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLiteCore

/// SQLCipher's settings for an open database.
public struct CipherSettings: Sendable, Hashable {
    /// SQLCipher's version, e.g. "3.4.1".
    public var cipherVersion: String
    /// The SQLite version SQLCipher is built on, e.g. "3.15.2".
    public var sqliteVersion: String
    /// The cipher, e.g. "AES-256-CBC".
    public var cipher: String
    /// Bytes per encrypted page.
    public var pageSize: Int
    /// PBKDF2 iterations applied to a passphrase.
    public var kdfIterations: Int
    /// Whether each page carries an HMAC (tamper detection).
    public var usesHMAC: Bool
}

/// Operations on encrypted databases beyond what a `Store` does.
public enum SQLCipher {
    /// Changes the key of an open encrypted store. Waits for writes in progress and for
    /// reads in progress; readers opened with the old key are replaced.
    ///
    /// The change is atomic, even if the process dies part way: the file then opens with the
    /// old key or with the new one, with every committed row. (The pages are rewritten under a
    /// rollback journal, which SQLite plays back on the next open, not through the write-ahead
    /// log, whose pages would be left under the new key beside a file still under the old.)
    ///
    /// ```swift
    /// try SQLCipher.rekey(vault, to: .passphrase(newSecret))
    /// ```
    public static func rekey(_ store: Store, to key: SQLCipherKey) throws {
        guard let driver = store.driver as? SQLCipherDriver else {
            throw SharkError.unsupported(.needsSQLCipher, "rekey needs a .sqlcipher store, not \(store.driverName)")
        }
        let material = try key.keyMaterial()
        try store.withWriterAccess { _ in
            let connection = driver.sql.writerSQLConnection
            guard let handle = connection.handle, let rekey = connection.library.api.pointee.rekey else {
                throw SharkError.unsupported(.libraryLacksFunction, "this SQLCipher library has no sqlite3_rekey")
            }
            try driver.sql.withReadersClosed {
                try leavingWAL(connection) {
                    let code = material.withUnsafeBytes { rekey(handle, $0.baseAddress, Int32($0.count)) }
                    guard code == 0 else {
                        throw SharkError.driver(
                            code: code, message: "rekey failed: \(connection.lastErrorMessage)", sql: nil)
                    }
                }
                driver.keying.replaceKey(with: key)
                driver.keying.prepareReaders(using: connection)
            }
        }
    }

    /// Runs `body` with the database in rollback-journal mode, then back in WAL mode: every
    /// page is folded back into the file first, and `body`'s writes are journaled atomically.
    private static func leavingWAL(_ connection: SQLiteConnection, _ body: () throws -> Void) throws {
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let mode = try connection.scalar("PRAGMA journal_mode = DELETE")?.coercedToText()
        guard mode == "delete" else {
            throw SharkError.driver(
                code: 5, message: "rekey needs the database to itself: another program has it open", sql: nil)
        }
        do {
            try body()
        } catch {
            _ = try? connection.scalar("PRAGMA journal_mode = WAL")
            throw error
        }
        _ = try connection.scalar("PRAGMA journal_mode = WAL")
    }

    /// The cipher settings of an open encrypted store.
    public static func settings(of store: Store) throws -> CipherSettings {
        guard let driver = store.driver as? SQLCipherDriver else {
            throw SharkError.unsupported(
                .needsSQLCipher, "cipher settings need a .sqlcipher store, not \(store.driverName)")
        }
        return try store.withWriterAccess { _ in
            let connection = driver.sql.writerSQLConnection
            func pragma(_ name: String) throws -> Value { try connection.scalar("PRAGMA \(name)") ?? .null }
            return CipherSettings(
                cipherVersion: try pragma("cipher_version").coercedToText(),
                sqliteVersion: connection.library.version,
                cipher: try pragma("cipher").coercedToText(),
                pageSize: Int(try pragma("cipher_page_size").coercedToInt64()),
                kdfIterations: Int(try pragma("kdf_iter").coercedToInt64()),
                usesHMAC: try pragma("cipher_use_hmac").coercedToInt64() != 0)
        }
    }

    /// Writes an encrypted copy of the plain SQLite database at `source` to `destination`
    /// (which must not exist). The source is left as it was; on failure no destination
    /// file is left behind.
    ///
    /// ```swift
    /// try SQLCipher.encrypt(plainDatabaseAt: "app.sqlite", into: "app.encrypted", key: .passphrase(secret))
    /// ```
    public static func encrypt(
        plainDatabaseAt source: String, into destination: String, key: SQLCipherKey, pageSize: Int = 4096
    ) throws {
        guard FileManager.default.fileExists(atPath: source) else { throw SharkError.fileNotFound(path: source) }
        // Only a plain database can be encrypted (an encrypted one reads as random bytes).
        guard CipherKeying.isPlainDatabase(source) else { throw SharkError.notADatabase(path: source) }
        try export(from: source, into: destination) { connection, copy in
            try connection.cachedStatement("ATTACH DATABASE ? AS shark_export KEY ?")
                .run([.text(copy), .blob(Data(try key.keyMaterial()))])
            try connection.execute("PRAGMA shark_export.cipher_page_size = \(pageSize)")
        }
    }

    /// Writes a plain, unencrypted copy of the encrypted database at `source` to
    /// `destination` (which must not exist).
    ///
    /// ```swift
    /// try SQLCipher.decrypt(databaseAt: "app.encrypted", key: .passphrase(secret), into: "app.sqlite")
    /// ```
    public static func decrypt(databaseAt source: String, key: SQLCipherKey, into destination: String) throws {
        guard FileManager.default.fileExists(atPath: source) else { throw SharkError.fileNotFound(path: source) }
        let keying = CipherKeying(path: source, key: key, pageSize: 4096)
        try export(from: source, into: destination, keying: keying) { connection, copy in
            try connection.cachedStatement("ATTACH DATABASE ? AS shark_export KEY ''").run([.text(copy)])
        }
    }

    /// Opens `source` with SQLCipher, attaches a new file beside `destination` (set up by
    /// `attach`, given that file's path), copies everything with `sqlcipher_export`, and only
    /// then moves the finished copy to `destination`. So `destination` is either absent or
    /// complete, even if the process dies part way (what it leaves is a hidden
    /// `.NAME.shark-partial-PID` file beside it, never a partial file at `destination`);
    /// the source is only read.
    private static func export(
        from source: String, into destination: String, keying: CipherKeying? = nil,
        attach: (SQLiteConnection, String) throws -> Void
    ) throws {
        let library = try SQLCipherLibrary.library()
        guard FileManager.default.fileExists(atPath: source) else { throw SharkError.fileNotFound(path: source) }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw SharkError.cannotOpen(path: destination, reason: "the file already exists")
        }
        // The copy reads the source through a connection that could write (SQLCipher 3 cannot
        // export from a read-only one): with a write-ahead log beside the source, closing
        // that connection would fold the log into it. Leave such a source alone.
        // An empty log (left by a program that stopped with the file open, as a killed export
        // does) has nothing to fold in.
        let resolved = URL(fileURLWithPath: source).resolvingSymlinksInPath().path
        let logSize = (try? FileManager.default.attributesOfItem(atPath: resolved + "-wal")[.size] as? Int) ?? 0
        guard logSize == 0 else {
            throw SharkError.cannotOpen(
                path: source,
                reason: "a write-ahead log (\(resolved)-wal) is beside it: close the program that has it open "
                    + "(or open and close it once, if one was interrupted), then copy it")
        }
        let directory = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SharkError.cannotOpen(path: destination, reason: "its folder \(directory) does not exist")
        }
        let name = URL(fileURLWithPath: destination).lastPathComponent
        let partial = URL(fileURLWithPath: directory).appendingPathComponent(
            ".\(name).shark-partial-\(ProcessInfo.processInfo.processIdentifier)"
        ).path
        func removePartial() {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: partial + suffix)
            }
        }
        removePartial()
        do {
            do {
                let connection = try SQLiteConnection(path: source, library: library) { connection in
                    try keying?.key(connection, role: .writer)
                }
                defer { connection.close() }
                try attach(connection, partial)
                try connection.execute("SELECT sqlcipher_export('shark_export')")
                try connection.execute("DETACH DATABASE shark_export")
            }
            try FileDurability.synchronize(partial)
            try FileDurability.move(partial, toNew: destination)
        } catch {
            removePartial()
            throw error
        }
    }
}
