import CSQLite
import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLiteCore
import Synchronization

extension StoreConfiguration {
    /// A store in an encrypted SQLCipher database at `path`, created if missing.
    ///
    /// ```swift
    /// let vault = try Store(.sqlcipher(path: "vault.sqlite", key: .passphrase(secret)))
    /// ```
    ///
    /// New databases use 4 KiB cipher pages (SQLCipher 4's default; SQLCipher 3's 1 KiB pages
    /// cost about a third more on inserts and fetches); existing SQLCipher 3 databases with
    /// 1 KiB pages open too. SQLCipher 3's own `sqlcipher` shell expects 1 KiB pages: to open a
    /// file SharkORM created with it, run `PRAGMA cipher_page_size = 4096;` right after
    /// `PRAGMA key`. A wrong key fails with ``SQLCipherError/wrongKey(path:)``, a plain
    /// database with ``SQLCipherError/notEncrypted(path:)``. Works beside `.sqlite` stores, and
    /// beside GRDB, in the same process.
    ///
    /// With `readOnly`, the file must exist and is never written (see
    /// `StoreConfiguration.sqlite(path:maximumReaders:readOnly:)`).
    ///
    /// ```swift
    /// let archive = try Store(.sqlcipher(path: "vault.sqlite", key: .passphrase(secret), readOnly: true))
    /// ```
    public static func sqlcipher(
        path: String, key: SQLCipherKey, pageSize: Int = 4096, maximumReaders: Int = 4, readOnly: Bool = false
    ) -> StoreConfiguration {
        makeSQLCipher(
            path: path, key: key, pageSize: pageSize, maximumReaders: maximumReaders, temporary: false,
            readOnly: readOnly)
    }

    /// An encrypted database in a new file in the temporary directory, deleted on close.
    public static func sqlcipherTemporary(key: SQLCipherKey) -> StoreConfiguration {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("shark-\(UUID().uuidString).sqlcipher").path
        return makeSQLCipher(
            path: path, key: key, pageSize: 4096, maximumReaders: 4, temporary: true, readOnly: false)
    }

    /// The page cache of each SQLCipher connection, in SQLite's negative-means-KiB form:
    /// 16 MiB where SQLite's default is 2 MiB. Every page read from the file is decrypted and
    /// authenticated, so a page evicted from a small cache costs a decryption each time it is
    /// read again: a scan of a 10 MB table repeated (an aggregate, a fetch of everything) ran
    /// 2.7× slower than on SQLite with the default cache, and about as fast with this one. The
    /// cache only grows as pages are read, so a small database never uses it.
    static let cipherCacheSize = -16_384

    private static func makeSQLCipher(
        path: String, key: SQLCipherKey, pageSize: Int, maximumReaders: Int, temporary: Bool, readOnly: Bool
    ) -> StoreConfiguration {
        StoreConfiguration(driverName: "sqlcipher") { tracer in
            let library = try SQLCipherLibrary.library()
            let keying = CipherKeying(path: path, key: key, pageSize: pageSize)
            let driver = try SQLiteStoreDriver(
                name: "sqlcipher", path: path, library: library, tracer: tracer, maximumReaders: maximumReaders,
                removesFileOnClose: temporary, readOnly: readOnly
            ) { connection, role in
                try keying.key(connection, role: role)
                try connection.execute("PRAGMA cache_size = \(Self.cipherCacheSize)")
            }
            keying.prepareReaders(using: driver.writerSQLConnection)
            return SQLCipherDriver(driver, keying: keying)
        }
    }
}
