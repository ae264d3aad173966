import CSQLite

/// A loaded SQLite-compatible library: its function table and what its version can do.
///
/// The table lives as long as the process (libraries are never unloaded), so connections can
/// keep a raw pointer to it. Two libraries — the system SQLite and an isolated SQLCipher —
/// can be in use side by side.
package final class SQLiteLibrary: @unchecked Sendable {
    /// The function table. Immutable after init; hence `@unchecked Sendable`.
    package let api: UnsafeMutablePointer<shark_sqlite3_api>
    /// `sqlite3_libversion_number()`, e.g. 3040001.
    package let versionNumber: Int32
    /// `sqlite3_libversion()`, e.g. "3.40.1".
    package let version: String
    /// What SQL this version understands.
    package let features: SQLiteFeatures
    /// A name for messages: "sqlite" or "sqlcipher".
    package let name: String

    /// Wraps a table that `fill` populates; the table is never freed.
    package init(name: String, fill: (UnsafeMutablePointer<shark_sqlite3_api>) throws -> Void) rethrows {
        let api = UnsafeMutablePointer<shark_sqlite3_api>.allocate(capacity: 1)
        try fill(api)
        self.api = api
        self.name = name
        // A table `fill` could not complete (a library that is not installed) has no
        // functions: its caller finds out and reports why, so nothing here may call through it.
        versionNumber = api.pointee.libversion_number.map { $0() } ?? 0
        version = api.pointee.libversion.flatMap { $0() }.map { String(cString: $0) } ?? "not loaded"
        features = SQLiteFeatures(versionNumber: versionNumber)
    }
}

/// The SQL features of a SQLite version, so generated SQL runs on old libraries too
/// (Debian's SQLCipher 3.4.1 is SQLite 3.15.2).
package struct SQLiteFeatures: Sendable, Hashable {
    package let versionNumber: Int32

    package init(versionNumber: Int32) { self.versionNumber = versionNumber }

    /// `sqlite3_prepare_v3` and persistent statements (3.20).
    package var hasPrepareV3: Bool { versionNumber >= 3_020_000 }
    /// `INSERT … ON CONFLICT DO UPDATE` (3.24).
    package var hasUpsert: Bool { versionNumber >= 3_024_000 }
    /// `ALTER TABLE … RENAME COLUMN` (3.25).
    package var hasRenameColumn: Bool { versionNumber >= 3_025_000 }
    /// `ALTER TABLE … DROP COLUMN` (3.35).
    package var hasDropColumn: Bool { versionNumber >= 3_035_000 }
    /// `SQLITE_DBCONFIG_DQS_DML`/`_DDL`: refusing double-quoted string literals (3.29).
    package var canRefuseDoubleQuotedStrings: Bool { versionNumber >= 3_029_000 }
    /// `… RETURNING` (3.35).
    package var hasReturning: Bool { versionNumber >= 3_035_000 }
}
