import CSQLite
import CSQLiteSystem
import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLiteCore

/// The system SQLite library linked into this binary.
enum SystemSQLite {
    /// Loaded once; the function table is shared by every SQLite store of the process.
    static let library = SQLiteLibrary(name: "sqlite") { shark_sqlite3_api_system($0) }
}

extension StoreConfiguration {
    /// A store in the SQLite database file at `path`, created if missing: the embedded
    /// default driver. The database runs in WAL mode with one writer and a pool of readers.
    ///
    /// ```swift
    /// let store = try Store(.sqlite(path: "app.sqlite"))
    /// ```
    ///
    /// With `readOnly`, the file must exist and is never written: no table is created, the
    /// journal mode is left as it is, and every write (a commit, raw SQL, preparing a model
    /// whose table differs) fails with `SharkError.readOnly`. For tools that
    /// inspect a database, and for reading one on read-only media.
    ///
    /// ```swift
    /// let archive = try Store(.sqlite(path: "archive.sqlite", readOnly: true))
    /// ```
    public static func sqlite(path: String, maximumReaders: Int = 4, readOnly: Bool = false) -> StoreConfiguration {
        StoreConfiguration(driverName: "sqlite") { tracer in
            try SQLiteStoreDriver(
                name: "sqlite", path: path, library: SystemSQLite.library, tracer: tracer,
                maximumReaders: maximumReaders, readOnly: readOnly)
        }
    }

    /// A store in a new SQLite database file in the temporary directory, deleted when the
    /// store closes. Behaves exactly like a file store (WAL, readers beside the writer).
    ///
    /// ```swift
    /// let scratch = try Store(.sqliteTemporary)
    /// ```
    public static var sqliteTemporary: StoreConfiguration {
        StoreConfiguration(driverName: "sqlite") { tracer in
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("shark-\(UUID().uuidString).sqlite").path
            return try SQLiteStoreDriver(
                name: "sqlite", path: path, library: SystemSQLite.library, tracer: tracer,
                removesFileOnClose: true)
        }
    }
}

/// The version of the linked SQLite, e.g. "3.40.1".
public var sqliteVersion: String { SystemSQLite.library.version }
