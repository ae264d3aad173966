import CSQLite
import Foundation
@_spi(SharkDriver) import SharkORM

/// One open SQLite (or SQLCipher) database connection, over a library's function table.
///
/// Not thread-safe: the driver hands each connection to one thread at a time. Statements
/// are prepared once and cached by SQL text.
package final class SQLiteConnection {
    package let library: SQLiteLibrary
    let api: UnsafeMutablePointer<shark_sqlite3_api>
    /// The database file.
    package let path: String
    let tracer: Tracer
    /// `tracer.isEnabled`, read once: statements check it on every execution.
    let isTracing: Bool
    /// The `sqlite3 *` handle, for driver-specific calls through the library's table.
    package private(set) var handle: OpaquePointer?
    private var statements: [String: SQLStatement] = [:]
    /// How many `?` parameters one statement may have (`SQLITE_LIMIT_VARIABLE_NUMBER`).
    package private(set) var parameterLimit = 999
    /// SharkORM's own SQL functions on this connection, and the typed error one raised.
    let functions: SQLFunctions

    /// Opens the database at `path`, as `access` says (by default for reading and writing,
    /// created if missing).
    ///
    /// `configure` runs right after opening, before anything reads the file: SQLCipher keys
    /// the connection there.
    package init(
        path: String, library: SQLiteLibrary, access: FileAccess = .readWrite, tracer: Tracer = Tracer(),
        configure: (SQLiteConnection) throws -> Void = { _ in }
    ) throws {
        self.path = path
        self.library = library
        self.api = library.api
        self.tracer = tracer
        self.isTracing = tracer.isEnabled
        self.functions = SQLFunctions(api: library.api)
        var db: OpaquePointer?
        let code: Int32
        switch access {
        case .readWrite:
            let flags = SHARK_SQLITE_OPEN_READWRITE | SHARK_SQLITE_OPEN_CREATE | SHARK_SQLITE_OPEN_NOMUTEX
            code = api.pointee.open_v2(path, &db, flags, nil)
        case .readOnly, .immutable:
            let flags = SHARK_SQLITE_OPEN_READONLY | SHARK_SQLITE_OPEN_URI | SHARK_SQLITE_OPEN_NOMUTEX
            code = api.pointee.open_v2(access.uri(for: path), &db, flags, nil)
        }
        handle = db
        guard code == SHARK_SQLITE_OK, db != nil else {
            let message = db.map { String(cString: api.pointee.errmsg($0)!) } ?? "out of memory"
            close()
            throw SQLiteErrors.error(code: code, message: message, sql: nil, path: path)
        }
        _ = api.pointee.extended_result_codes(db, 1)
        parameterLimit = Int(api.pointee.limit(db, SHARK_SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        // Queries with more values than parameters bind the rest through shark_arg(i).
        _ = shark_register_overflow_function(api, db)
        // Arithmetic, LIKE, sums and checks computed by the core's rules (SQLFunctions).
        functions.register(on: db!)
        if library.features.canRefuseDoubleQuotedStrings {
            // A double-quoted name that matches no column would otherwise silently become a
            // string literal: make it the error it is.
            _ = shark_db_config_int(api, db, SHARK_SQLITE_DBCONFIG_DQS_DML, 0)
            _ = shark_db_config_int(api, db, SHARK_SQLITE_DBCONFIG_DQS_DDL, 0)
        }
        do {
            try configure(self)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Finalizes every statement and closes the connection.
    package func close() {
        statements.values.forEach { $0.finalize() }
        statements.removeAll()
        if let handle {
            _ = api.pointee.close_v2(handle)
            self.handle = nil
        }
    }

    /// Sets how long a statement waits for a lock held by another connection.
    package func setBusyTimeout(milliseconds: Int32) {
        _ = api.pointee.busy_timeout(handle, milliseconds)
    }

    /// Runs one or more statements that take no arguments, reporting them to the tracer.
    package func execute(_ sql: String) throws {
        let db = try openHandle()
        let start = isTracing ? ContinuousClock.now : nil
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = api.pointee.exec(db, sql, nil, nil, &errorMessage)
        var failure: SharkError?
        if code != SHARK_SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            api.pointee.free(errorMessage)
            failure = error(code: code, message: message, sql: sql)
        }
        if let start {
            tracer.record(statement: sql, arguments: [], duration: ContinuousClock.now - start, rows: 0, error: failure)
        }
        if let failure { throw failure }
    }

    /// The single value of the first row of a query (PRAGMAs, counts), or nil without rows.
    package func scalar(_ sql: String, _ arguments: [Value] = []) throws -> Value? {
        let statement = try cachedStatement(sql)
        var result: Value?
        try statement.run(arguments) { row in
            if result == nil { result = row.value(at: 0) }
        }
        return result
    }

    /// Every row of a query, as values. For schema introspection, not for model fetches.
    package func rows(_ sql: String, _ arguments: [Value] = []) throws -> [[Value]] {
        let statement = try cachedStatement(sql)
        var rows: [[Value]] = []
        try statement.run(arguments) { row in
            rows.append((0..<row.columnCount).map { row.value(at: $0) })
        }
        return rows
    }

    /// A prepared statement for `sql`, prepared once per connection and reused.
    package func cachedStatement(_ sql: String) throws -> SQLStatement {
        if let statement = statements[sql] { return statement }
        let statement = try prepare(sql, persistent: true)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` with a statement for `sql`: the cached one for ordinary statements, a fresh
    /// one, finalized afterwards, for very long texts (a query with thousands of values), which
    /// would otherwise fill the cache with statements that are never used again.
    @discardableResult
    package func withStatement<T>(_ sql: String, _ body: (SQLStatement) throws -> T) throws -> T {
        if sql.utf8.count <= Self.longestCachedStatement { return try body(try cachedStatement(sql)) }
        let statement = try prepare(sql, persistent: false)
        defer { statement.finalize() }
        return try body(statement)
    }

    /// The longest SQL text kept in the statement cache, in bytes.
    static let longestCachedStatement = 16_384

    /// Prepares exactly one statement from text an app wrote (raw SQL): text after the first
    /// statement that is more than whitespace and comments is refused rather than silently
    /// ignored, since SQLite would only ever run the first.
    ///
    /// With `readOnly`, a statement that may change anything — a write, DDL, a transaction or
    /// savepoint, ATTACH, a PRAGMA other than those that only read — is refused while SQLite
    /// prepares it (some pragmas take effect then), with
    /// ``SharkError/QueryReason/rawStatementMayWrite``.
    func prepareSingleStatement(_ sql: String, readOnly: Bool = false) throws -> SQLStatement {
        // Only a statement prepared here knows what it writes; one the SQL layer cached for
        // itself under the same text is prepared again.
        if let statement = statements[sql], statement.isAuthorized { return statement }
        let db = try openHandle()
        var handle: OpaquePointer?
        var remainder = ""
        // SQLite authorizes a statement when it prepares it: listen then, to learn which
        // tables it writes (DELETE without WHERE, REPLACE and WITHOUT ROWID tables included,
        // which the update hook misses).
        let written = WrittenTables()
        written.denyingChanges = readOnly
        _ = api.pointee.set_authorizer(db, recordWrittenTables, Unmanaged.passUnretained(written).toOpaque())
        defer { _ = api.pointee.set_authorizer(db, nil, nil) }
        let code = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = api.pointee.prepare_v2(db, text, -1, &handle, &tail)
            if code == SHARK_SQLITE_OK, let tail, tail.pointee != 0 { remainder = String(cString: tail) }
            return code
        }
        if written.denied {
            if let handle { _ = api.pointee.finalize(handle) }
            throw SharkError.invalidQuery(
                .rawStatementMayWrite,
                "this statement may change the database: run it with execute(_:arguments:), or inside a write "
                    + "transaction")
        }
        guard code == SHARK_SQLITE_OK else { throw error(code: code, message: lastErrorMessage, sql: sql) }
        guard let handle else {
            throw SharkError.invalidQuery(
                .rawStatementMissing, "the SQL text holds no statement: \(sql.debugDescription)")
        }
        let statement = SQLStatement(handle: handle, sql: sql, connection: self)
        statement.writtenTables = written.tables
        statement.changesSchema = written.changesSchema
        statement.isPragma = written.isPragma
        statement.setsPragma = written.setsPragma
        statement.isAuthorized = true
        if !remainder.isEmpty {
            // Whitespace, comments and stray semicolons prepare to no statement at all.
            var extra: OpaquePointer?
            let extraCode = api.pointee.prepare_v2(db, remainder, -1, &extra, nil)
            if let extra { _ = api.pointee.finalize(extra) }
            if extraCode != SHARK_SQLITE_OK || extra != nil {
                statement.finalize()
                throw SharkError.invalidQuery(
                    .rawStatementNotSingle,
                    "raw SQL runs one statement at a time, but the text goes on after the first: "
                        + remainder.trimmingCharacters(in: .whitespacesAndNewlines).prefix(60).debugDescription)
            }
        }
        statements[sql] = statement
        return statement
    }

    /// Forgets cached statements (after a schema change made them stale).
    package func clearStatementCache() {
        statements.values.forEach { $0.finalize() }
        statements.removeAll()
    }

    private func prepare(_ sql: String, persistent: Bool) throws -> SQLStatement {
        let db = try openHandle()
        var statement: OpaquePointer?
        let code: Int32
        if let prepareV3 = api.pointee.prepare_v3 {
            let flags: UInt32 = persistent ? UInt32(SHARK_SQLITE_PREPARE_PERSISTENT) : 0
            code = prepareV3(db, sql, -1, flags, &statement, nil)
        } else {
            code = api.pointee.prepare_v2(db, sql, -1, &statement, nil)
        }
        guard code == SHARK_SQLITE_OK, let statement else {
            throw error(code: code, message: lastErrorMessage, sql: sql)
        }
        return SQLStatement(handle: statement, sql: sql, connection: self)
    }

    /// Rows changed by the last write.
    package var changes: Int32 { handle.map { api.pointee.changes($0) } ?? 0 }

    /// The rowid of the last insert.
    package var lastInsertRowID: Int64 { handle.map { api.pointee.last_insert_rowid($0) } ?? 0 }

    /// Whether no transaction is open.
    package var isAutocommit: Bool { handle.map { api.pointee.get_autocommit($0) != 0 } ?? true }

    /// The connection's last error message.
    package var lastErrorMessage: String {
        handle.map { String(cString: api.pointee.errmsg($0)!) } ?? "connection closed"
    }

    var lastErrorCode: Int32 {
        handle.map { api.pointee.extended_errcode($0) } ?? SHARK_SQLITE_ERROR
    }

    func error(code: Int32, message: String? = nil, sql: String?, entity: String? = nil) -> SharkError {
        // A function of SharkORM's failed the statement: its own typed error says why.
        if let failure = functions.takeError() { return failure }
        // Prefer the connection's extended code (SQLITE_CONSTRAINT_UNIQUE rather than
        // SQLITE_CONSTRAINT) when it describes the same failure.
        let extended = handle != nil && (lastErrorCode & 0xFF) == (code & 0xFF) ? lastErrorCode : code
        return SQLiteErrors.error(
            code: extended, message: message ?? lastErrorMessage, sql: sql, path: path, entity: entity)
    }

    private func openHandle() throws -> OpaquePointer {
        guard let handle else { throw SharkError.closed }
        return handle
    }
}

/// The tables a statement being prepared writes, collected by ``recordWrittenTables``.
final class WrittenTables {
    var tables: Set<String> = []
    /// Whether the statement creates, drops or alters a table, index, view or trigger.
    var changesSchema = false
    /// Whether the statement is a PRAGMA, and whether it sets its pragma (`PRAGMA x = y`, or
    /// `PRAGMA x(y)`) rather than only reading it.
    var isPragma = false
    var setsPragma = false
    /// Set for a read-only preparation: every action that may change anything is denied.
    var denyingChanges = false
    /// Whether an action was denied (the preparation then fails).
    var denied = false

    /// Pragmas that report a setting, and change it when given a value: a read-only
    /// statement may use them without one (`PRAGMA journal_mode`).
    static let readingPragmas: Set<String> = [
        "application_id", "auto_vacuum", "cache_size", "cipher_provider", "cipher_version", "collation_list",
        "compile_options", "data_version", "database_list", "encoding", "foreign_keys", "freelist_count",
        "function_list", "journal_mode", "module_list", "page_count", "page_size", "pragma_list", "schema_version",
        "synchronous", "user_version",
    ]
    /// Pragmas whose argument names what they describe (`PRAGMA table_info(Person)`): a
    /// read-only statement may use them with one.
    static let describingPragmas: Set<String> = [
        "foreign_key_check", "foreign_key_list", "index_info", "index_list", "index_xinfo", "integrity_check",
        "quick_check", "table_info", "table_list", "table_xinfo",
    ]

    /// Whether a read-only statement may take this action (an `sqlite3_set_authorizer` code).
    func allows(_ action: Int32, _ first: UnsafePointer<CChar>?, _ second: UnsafePointer<CChar>?) -> Bool {
        switch action {
        case 19:  // PRAGMA: its name first, its argument second
            guard let first else { return false }
            let name = String(cString: first).lowercased()
            if Self.describingPragmas.contains(name) { return true }
            return second == nil && Self.readingPragmas.contains(name)
        // Every CREATE, DROP, INSERT, UPDATE, DELETE and ALTER; transactions, ATTACH, DETACH,
        // REINDEX, ANALYZE, virtual tables, savepoints.
        case 1...18, 22...30, 32: return false
        default: return true
        }
    }
}

/// An `sqlite3_set_authorizer` callback that records the tables the statement writes into the
/// ``WrittenTables`` it is given (SQLite's own tables left out), and allows everything unless
/// that preparation is read-only.
private let recordWrittenTables:
    @convention(c) (
        UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
        UnsafePointer<CChar>?
    ) -> Int32 = { context, action, first, second, _, _ in
        guard let context else { return 0 }
        let written = Unmanaged<WrittenTables>.fromOpaque(context).takeUnretainedValue()
        if written.denyingChanges && !written.allows(action, first, second) {
            written.denied = true
            return 1  // SQLITE_DENY: the preparation fails
        }
        if action == 19 {  // SQLITE_PRAGMA: its name first, the value it is given (if any) second
            let written = Unmanaged<WrittenTables>.fromOpaque(context).takeUnretainedValue()
            written.isPragma = true
            if second != nil { written.setsPragma = true }
        }
        let table: UnsafePointer<CChar>?
        switch action {
        case 9, 18, 23, 11: table = first  // DELETE, INSERT, UPDATE, DROP TABLE: the table first
        case 26, 10, 1: table = second  // ALTER TABLE, DROP INDEX, CREATE INDEX: the table second
        default: table = nil
        }
        // CREATE_* (1–8), DROP_* (10–17), ALTER TABLE (26).
        if (1...8).contains(action) || (10...17).contains(action) || action == 26 {
            Unmanaged<WrittenTables>.fromOpaque(context).takeUnretainedValue().changesSchema = true
        }
        if let table {
            let name = String(cString: table)
            if !EntitySchema.folded(name).hasPrefix("sqlite_") {
                Unmanaged<WrittenTables>.fromOpaque(context).takeUnretainedValue().tables.insert(name)
            }
        }
        return 0  // SQLITE_OK
    }
