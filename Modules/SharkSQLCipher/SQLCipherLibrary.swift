import CSQLite
import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLiteCore

/// Loads Debian's `libsqlcipher.so.0` into the CSQLite function table, isolated from any
/// other SQLite in the process.
///
/// SQLCipher exports the same `sqlite3_*` symbols as the system libsqlite3, which is linked
/// into every binary that uses `SharkSQLite` (and GRDB's). A plain `dlopen(RTLD_LOCAL)` is
/// not enough once libsqlite3 is global: SQLCipher's internal calls then resolve to the
/// system SQLite and crash. The library is loaded with `RTLD_LOCAL | RTLD_DEEPBIND`: its own
/// references bind to itself first, and its symbols stay out of the global scope.
/// `dlmopen(LM_ID_NEWLM)` was tried too: it works single-threaded, but the second libc it
/// loads crashes inside OpenSSL's locks as soon as several threads use it.
enum SQLCipherLibrary {
    static let candidates = ["libsqlcipher.so.0", "libsqlcipher.so"]

    /// The loaded library, or why it could not be loaded (computed once).
    static let loaded: Result<SQLiteLibrary, SQLCipherError> = {
        var reasons: [String] = []
        for name in candidates {
            var message = [CChar](repeating: 0, count: 512)
            var failed = false
            let library = SQLiteLibrary(name: "sqlcipher") { api in
                failed = shark_sqlite3_api_load(name, 1, api, &message, message.count) != 0
            }
            if !failed, library.api.pointee.key != nil { return .success(library) }
            reasons.append(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return .failure(
            .missingLibrary(
                name: "SQLCipher (libsqlcipher.so.0)",
                install: "apt-get install libsqlcipher0 (or libsqlcipher-dev); " + reasons.joined(separator: "; ")))
    }()

    static func library() throws -> SQLiteLibrary {
        try loaded.get()
    }
}
